import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    if mode == "outlier" and M >= 2:
        x[M - 1] = 0  # an all-zero row: rstd = 1/sqrt(eps)
    weight = normal((N,), dtype, gen, std=0.5)
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=100.0)
    return (x, weight, grad_out)
