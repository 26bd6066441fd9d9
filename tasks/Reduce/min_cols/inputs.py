import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=3.0), gen, mode)
    if mode == "outlier" and N >= 3:
        # Edge cases: an all-positive column (a kernel starting its minimum at 0 fails), a
        # constant column, and a column whose minimum sits in the last row.
        x[:, 0] = (x[:, 0].float().abs() + 500.0).to(x.dtype)
        x[:, 1] = 3.0
        x[M - 1, 2] = -1e4
    return (x,)
