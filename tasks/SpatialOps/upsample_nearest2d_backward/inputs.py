import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    x = normal((N, C, H, W), dtype, gen)
    grad_out = maybe_outliers(normal((N, C, 2 * H, 2 * W), dtype, gen), gen, mode)
    return (x, grad_out)
