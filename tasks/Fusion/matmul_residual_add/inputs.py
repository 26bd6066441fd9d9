import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, N = shape["M"], shape["K"], shape["N"]
    # outliers amplified 1e2: a product of two stays inside float16
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((N, K), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
    residual = normal((M, N), dtype, gen)
    return (x, w, residual)
