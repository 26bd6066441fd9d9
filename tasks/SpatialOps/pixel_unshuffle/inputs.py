import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, R, H, W = shape["N"], shape["C"], shape["R"], shape["H"], shape["W"]
    x = normal((N, C, H * R, W * R), dtype, gen)
    return (maybe_outliers(x, gen, mode), R)
