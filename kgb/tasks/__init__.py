"""The task model: what a kernel must compute, on which shapes, dtypes and inputs."""

from kgb.tasks.model import Case, ShapeSpec, Task, Tolerance
from kgb.tasks.loader import load_suite, load_task

__all__ = ["Case", "ShapeSpec", "Task", "Tolerance", "load_suite", "load_task"]
