import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier" and M >= 3:
        # Edge cases: a row of values ~-1e3 (exp underflows without the max shift), a constant
        # row (c + log N), and a row whose maximum sits in the last column.
        x[0] = (x[0].float() - 1000.0).to(x.dtype)
        x[1] = 2.0
        x[2, N - 1] = 900.0
    return (x,)
