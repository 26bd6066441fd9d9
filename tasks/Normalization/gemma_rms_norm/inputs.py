import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    if mode == "outlier" and M >= 2:
        x[M - 1] = 0  # edge case: an all-zero row normalizes to zeros (eps keeps rsqrt finite)
    # weight is an offset from 1; a few entries near -1 make (1 + weight) small or negative
    weight = normal((N,), dtype, gen, std=0.5)
    return (x, weight)
