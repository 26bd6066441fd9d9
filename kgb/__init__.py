"""kgb — the KernelGenBench runner.

`kgb.verify(...)`, `kgb.verify_kernel(...)` and the async `kgb.Verifier` are the Python API
(kgb/api.py, kgb/verifier.py, docs/api.md);
they are imported on first use, so importing a kgb module (the sandboxed worker does) loads
nothing else."""

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name in ("verify", "verify_kernel", "JobResult", "Report"):
        from kgb import api

        return getattr(api, name)
    if name == "Verifier":
        from kgb.verifier import Verifier

        return Verifier
    raise AttributeError(f"module 'kgb' has no attribute {name!r}")
