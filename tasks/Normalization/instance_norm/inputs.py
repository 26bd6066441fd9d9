import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    x = normal((N, C, H, W), dtype, gen, std=2.0, mean=-0.5)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # Edge cases: a plane with mean ~64 and spread ~0.5, and a constant plane.
        x[0, 0] = (x[0, 0].float() * 0.25 + 64.0).to(x.dtype)
        x[N - 1, C - 1] = -2.5
    weight = normal((C,), dtype, gen, std=0.5, mean=1.0)
    bias = normal((C,), dtype, gen, std=0.5)
    return (x, weight, bias)
