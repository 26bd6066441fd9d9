import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, G = shape["N"], shape["C"], shape["H"], shape["W"], shape["G"]
    x = normal((N, C, H, W), dtype, gen, mean=0.3)
    grad_out = normal((N, C, H, W), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        grad_out = maybe_outliers(grad_out, gen, mode, scale=100.0)
        cg = C // G
        # Edge case: a group with mean ~64 and spread ~0.5 (naive variance fails).
        x[0, :cg] = (x[0, :cg].float() * 0.5 + 64.0).to(x.dtype)
    weight = normal((C,), dtype, gen, std=0.5, mean=1.0)
    return (x, weight, grad_out, G)
