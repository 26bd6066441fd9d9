import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    PL, PR, PT, PB = shape["PL"], shape["PR"], shape["PT"], shape["PB"]
    x = normal((N, C, H, W), dtype, gen)
    grad_out = normal((N, C, H + PT + PB, W + PL + PR), dtype, gen)
    return (x, (PL, PR, PT, PB), maybe_outliers(grad_out, gen, mode))
