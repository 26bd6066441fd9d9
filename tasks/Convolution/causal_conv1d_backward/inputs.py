import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, D, L, KW = shape["B"], shape["D"], shape["L"], shape["KW"]
    # outliers amplified 1e2: z reaches ~1e2 (silu' saturates to 0 or 1, never NaN)
    x = maybe_outliers(normal((B, D, L), dtype, gen), gen, mode, scale=1e2)
    weight = normal((D, KW), dtype, gen, std=KW ** -0.5)
    bias = normal((D,), dtype, gen, std=0.5)
    grad_out = maybe_outliers(normal((B, D, L), dtype, gen), gen, mode, scale=1e2)
    return (x, weight, bias, grad_out)
