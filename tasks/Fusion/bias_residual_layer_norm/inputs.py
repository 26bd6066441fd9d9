import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    bias = normal((N,), dtype, gen, std=0.5)
    residual = normal((M, N), dtype, gen, mean=1.0)
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    beta = normal((N,), dtype, gen, std=0.5)
    return (x, bias, residual, weight, beta)
