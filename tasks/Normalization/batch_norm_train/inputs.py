import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    x = normal((N, C, H, W), dtype, gen, std=1.5, mean=0.25)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # Edge cases: channel 0 has mean ~64 and spread ~0.5 (naive variance fails); the last
        # channel is constant (variance 0).
        x[:, 0] = (x[:, 0].float() * 0.25 + 64.0).to(x.dtype)
        if C >= 2:
            x[:, C - 1] = 0.5
    weight = normal((C,), "float32", gen, std=0.5, mean=1.0)
    bias = normal((C,), "float32", gen, std=0.5)
    return (x, weight, bias)
