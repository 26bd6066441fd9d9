import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    residual = normal((M, N), dtype, gen, std=2.0)
    if mode == "outlier" and M >= 2:
        # Edge case: x cancels the residual exactly, so h and the normalized row are all zero.
        x[M - 1] = -residual[M - 1]
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    return (x, residual, weight)
