import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, N = shape["B"], shape["N"]
    x = maybe_outliers(normal((B, N), dtype, gen), gen, mode)
    if mode == "outlier" and B >= 3:
        x[B - 1] = 0  # edge case: an all-zero row
    return (x,)
