import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    a = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    x = maybe_outliers(normal((M,), dtype, gen, std=M ** -0.5), gen, mode, scale=1e2)
    if mode == "outlier":
        a[:, 0] = 0  # an all-zero column
    return (a, x)
