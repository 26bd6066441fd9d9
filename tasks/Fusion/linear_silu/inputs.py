import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, N = shape["M"], shape["K"], shape["N"]
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((N, K), dtype, gen, std=2.0 * K ** -0.5), gen, mode, scale=1e2)
    b = normal((N,), dtype, gen)
    return (x, w, b)
