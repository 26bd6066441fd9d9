import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, M, N = shape["B"], shape["M"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    a = maybe_outliers(normal((B, M, N), dtype, gen), gen, mode, scale=1e2)
    x = maybe_outliers(normal((B, N), dtype, gen, std=N ** -0.5), gen, mode, scale=1e2)
    if mode == "outlier":
        x[-1] = 0  # the last batch entry's output is all zero
    return (a, x)
