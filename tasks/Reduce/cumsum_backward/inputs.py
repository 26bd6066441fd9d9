import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen)
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    return (x, grad_out)
