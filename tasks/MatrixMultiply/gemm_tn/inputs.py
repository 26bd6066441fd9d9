import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, N = shape["M"], shape["K"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    a = maybe_outliers(normal((K, M), dtype, gen), gen, mode, scale=1e2)
    b = maybe_outliers(normal((K, N), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
    return (a, b)
