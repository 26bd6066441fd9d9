import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    h = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=100.0)
    grad_residual = normal((M, N), dtype, gen)
    return (h, weight, grad_out, grad_residual)
