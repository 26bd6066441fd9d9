import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen, std=1.5, mean=0.2)
    grad_out = normal((M, N), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        grad_out = maybe_outliers(grad_out, gen, mode, scale=100.0)
        # Edge case: a row with mean ~64 and spread ~0.5 (naive variance breaks down).
        x[0] = (x[0].float() * 0.3 + 64.0).to(x.dtype)
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    return (x, weight, grad_out)
