import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    x = normal((N, C, H, W), dtype, gen, std=2.0, mean=-0.5)
    grad_out = normal((N, C, H, W), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        grad_out = maybe_outliers(grad_out, gen, mode, scale=100.0)
        # Edge cases: a plane with mean ~64 and spread ~0.5, and a constant plane.
        x[0, 0] = (x[0, 0].float() * 0.25 + 64.0).to(x.dtype)
        x[N - 1, C - 1] = -2.5
    weight = normal((C,), dtype, gen, std=0.5, mean=1.0)
    return (x, weight, grad_out)
