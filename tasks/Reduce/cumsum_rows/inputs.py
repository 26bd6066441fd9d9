import torch

from kgb.tasks.inputs import maybe_outliers, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = uniform((shape["M"], shape["N"]), dtype, gen)
    return (maybe_outliers(x, gen, mode),)
