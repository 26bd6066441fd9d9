import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    residual = normal((M, N), dtype, gen, std=2.0)
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    if mode == "outlier" and M >= 2:
        x[-1] = -residual[-1]  # s is exactly zero on this row: y = 0
    return (x, residual, weight)
