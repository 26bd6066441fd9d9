import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    p = normal(dims, dtype, gen, std=0.02)  # a weight matrix at its init scale
    g = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    buf = normal(dims, dtype, gen, std=0.5)  # the momentum buffer: not the first step
    return (p, g, buf)
