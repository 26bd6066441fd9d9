import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # outliers amplified 1e2: a product of two stays inside float16
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    y = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    z = normal((M, N), dtype, gen)
    return (x, y, z)
