"""The task model: what a kernel must compute, on which shapes, dtypes and inputs.

This package's __init__ imports nothing, so the untrusted worker can import the neutral
`kgb.tasks.inputs` and `kgb.tasks.casegen` without pulling in the loader (trusted side)."""
