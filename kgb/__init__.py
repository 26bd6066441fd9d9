"""kgb — the KernelGenBench runner."""

__version__ = "0.1.0"
