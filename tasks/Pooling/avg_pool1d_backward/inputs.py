import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, L = shape["N"], shape["C"], shape["L"]
    x = normal((N, C, L), dtype, gen)
    grad_out = maybe_outliers(normal((N, C, L // 2), dtype, gen), gen, mode)
    return (x, grad_out)
