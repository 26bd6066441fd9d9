import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """x [N, C, L] normal around a per-channel offset (an all-zero or constant answer is far
    off); the output length OUT as a Python int (it may exceed L)."""
    n, c, length = shape["N"], shape["C"], shape["L"]
    offset = normal((1, c, 1), "float32", gen)
    x = (offset + normal((n, c, length), "float32", gen)).to(getattr(torch, dtype))
    return (maybe_outliers(x, gen, mode), shape["OUT"])
