import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, D = shape["B"], shape["S"], shape["D"]
    x = normal((B, S, D), dtype, gen, std=1.5, mean=0.2)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # Edge cases: a row with mean ~64 and spread ~1 (catastrophic cancellation for a naive
        # one-pass variance) and a constant row (variance 0).
        x[0, 0] = (x[0, 0].float() * 0.5 + 64.0).to(x.dtype)
        if S >= 2:
            x[B - 1, S - 1] = -3.0
    return (x,)
