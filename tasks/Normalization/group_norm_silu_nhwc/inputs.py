import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, H, W, C, G = shape["N"], shape["H"], shape["W"], shape["C"], shape["G"]
    x = normal((N, H, W, C), dtype, gen, std=2.0, mean=0.3)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        cg = C // G
        # Edge cases: group 0 of sample 0 with mean ~64 and spread ~0.5; the last group of the
        # last sample constant.
        x[0, :, :, :cg] = (x[0, :, :, :cg].float() * 0.25 + 64.0).to(x.dtype)
        x[N - 1, :, :, C - cg:] = -1.5
    weight = normal((C,), dtype, gen, std=0.5, mean=1.0)
    bias = normal((C,), dtype, gen, std=0.5)
    return (x, weight, bias, G)
