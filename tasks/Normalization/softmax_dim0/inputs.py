import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier" and N >= 2:
        x[:, N - 1] = -4.0  # edge case: a constant column gives 1 / M everywhere
    return (x,)
