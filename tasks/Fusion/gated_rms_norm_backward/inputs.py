import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen)
    z = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode, scale=1e2)
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    if mode == "outlier" and M >= 2:
        z[0] = 0  # g = 0 on this row
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    return (x, z, weight, grad_out)
