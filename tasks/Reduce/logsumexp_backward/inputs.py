import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier" and M >= 2:
        x[0] = 0.0  # an all-equal row: a uniform softmax
        x[1, N - 1] = 1e3  # one dominant entry
    grad_out = normal((M,), dtype, gen)
    return (x, grad_out)
