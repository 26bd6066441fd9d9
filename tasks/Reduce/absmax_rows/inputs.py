import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    if mode == "outlier" and M >= 3:
        # Edge cases: an all-zero row, an all-negative row, and a row whose largest magnitude is
        # a negative entry in its last column.
        x[0] = 0
        x[1] = (-x[1].float().abs() - 1.0).to(x.dtype)
        x[2, N - 1] = -5e3
    return (x,)
