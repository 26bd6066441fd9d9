import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, G = shape["N"], shape["C"], shape["H"], shape["W"], shape["G"]
    x = normal((N, C, H, W), dtype, gen, mean=0.3)
    cg = C // G
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # Edge cases: the first group of sample 0 has mean ~64 and spread ~0.5 (naive
        # variance fails); the last group of the last sample is constant (variance 0).
        x[0, :cg] = (x[0, :cg].float() * 0.5 + 64.0).to(x.dtype)
        if G >= 2:
            x[N - 1, C - cg:] = 1.25
    weight = normal((C,), dtype, gen, std=0.5, mean=1.0)
    bias = normal((C,), dtype, gen, std=0.5)
    return (x, weight, bias, G)
