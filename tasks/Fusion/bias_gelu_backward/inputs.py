import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    b = normal((N,), dtype, gen)
    grad_out = normal((M, N), dtype, gen)
    return (x, b, grad_out)
