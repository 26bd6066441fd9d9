import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = normal((shape["B"], shape["L"], shape["D"]), dtype, gen, mean=0.1)
    return (maybe_outliers(x, gen, mode),)
