import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, N = shape["M"], shape["K"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((N, K), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
    bias = normal((N,), dtype, gen, std=0.5)
    residual = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    return (x, w, bias, residual)
