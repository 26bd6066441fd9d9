import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=100.0)
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    return (x, weight, grad_out)
