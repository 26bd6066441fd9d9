import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = normal((shape["M"], shape["N"]), dtype, gen, std=2.0)
    return (maybe_outliers(x, gen, mode),)
