import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = normal((shape["N"], shape["H"], shape["W"], shape["C"]), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        x[..., 0] = -5.0  # an all-equal channel
    return (x,)
