import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen, std=1.5, mean=0.5)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode, scale=100.0)
        # Edge cases: a column with mean ~64 and spread ~0.5 (naive variance fails) and a
        # constant column (variance 0).
        x[:, 0] = (x[:, 0].float() * 0.33 + 64.0).to(x.dtype)
        if N >= 2:
            x[:, N - 1] = -2.0
    return (x,)
