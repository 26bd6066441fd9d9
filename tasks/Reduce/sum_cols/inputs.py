import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    # A small positive mean keeps column sums away from zero, so relative errors mean something.
    x = normal((shape["M"], shape["N"]), dtype, gen, mean=0.1)
    return (maybe_outliers(x, gen, mode),)
