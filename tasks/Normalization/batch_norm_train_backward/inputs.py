import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    x = normal((N, C, H, W), dtype, gen, std=2.0, mean=0.5)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # channel 0: mean ~64, spread ~0.25; the last channel constant (variance 0)
        x[:, 0] = (x[:, 0].float() * 0.125 + 64.0).to(x.dtype)
        if C >= 2:
            x[:, C - 1] = 0.5
    weight = normal((C,), "float32", gen, std=0.5, mean=1.0)
    # the forward's saved statistics (biased variance, eps = 1e-5), in float32
    xf = x.float()
    mean = xf.mean(dim=(0, 2, 3))
    var = xf.var(dim=(0, 2, 3), unbiased=False)
    invstd = torch.rsqrt(var + 1e-5)
    grad_out = normal((N, C, H, W), dtype, gen)
    return (x, weight, mean, invstd, grad_out)
