import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, F = shape["M"], shape["K"], shape["F"]
    # outliers amplified 1e1 in both operands: g * u of amplified rows stays inside float16
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode, scale=1e1)
    w = maybe_outliers(normal((2 * F, K), dtype, gen, std=K ** -0.5), gen, mode, scale=1e1)
    return (x, w)
