import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = normal((shape["N"], shape["C"], shape["L"]), dtype, gen)
    return (maybe_outliers(x, gen, mode),)
