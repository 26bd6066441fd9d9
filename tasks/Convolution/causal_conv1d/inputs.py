import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, D, L, KW = shape["B"], shape["D"], shape["L"], shape["KW"]
    # Outliers amplified 1e2 (not the default 1e3): a product stays inside float16, and the
    # SiLU of a large negative value must give -0 (no overflow of exp(-z) into NaN).
    x = maybe_outliers(normal((B, D, L), dtype, gen), gen, mode, scale=1e2)
    weight = normal((D, KW), dtype, gen, std=KW ** -0.5)
    bias = normal((D,), dtype, gen, std=0.5)
    return (x, weight, bias)
