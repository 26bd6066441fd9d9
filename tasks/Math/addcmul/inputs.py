import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    x = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    t1 = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    t2 = normal(dims, dtype, gen)
    return (x, t1, t2)
