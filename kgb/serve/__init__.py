"""`kgb serve` and the machinery behind `kgb.Verifier`: each verification runs the whole
`kgb verify` pipeline in a child process of its own (child.py), started and bounded by an
executor (executor.py: local now, a Ray actor later), behind a stdlib HTTP front (http.py)."""
