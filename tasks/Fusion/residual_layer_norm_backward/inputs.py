import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    residual = normal((M, N), dtype, gen, std=2.0, mean=0.5)
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    bias = normal((N,), dtype, gen, std=0.5)
    grad_out = normal((M, N), dtype, gen)
    return (x, residual, weight, bias, grad_out)
