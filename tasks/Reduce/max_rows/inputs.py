import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=3.0), gen, mode)
    if mode == "outlier" and M >= 3:
        # Edge cases: an all-negative row (a kernel starting its maximum at 0 fails), a
        # constant row, and a row whose maximum sits in its last column.
        x[0] = (-x[0].float().abs() - 500.0).to(x.dtype)
        x[1] = -2.0
        x[2, N - 1] = 1e4
    return (x,)
