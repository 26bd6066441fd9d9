import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    p = normal(dims, dtype, gen)
    g = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    square_avg = uniform(dims, dtype, gen, low=0.0, high=2.0)  # a running mean of g**2, >= 0
    acc_delta = uniform(dims, dtype, gen, low=0.0, high=1e-2)  # of the updates' squares, >= 0
    return (p, g, square_avg, acc_delta)
