import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # Edge cases: a row whose mean (~64) dwarfs its spread (naive E[x^2] - E[x]^2 breaks
        # down) and, when there are enough rows, a constant row (variance 0: out = bias).
        x[0] = (x[0].float() * 0.5 + 64.0).to(x.dtype)
        if M >= 3:
            x[M - 1] = 0.75
    weight = normal((N,), dtype, gen, std=0.5, mean=1.0)
    bias = normal((N,), dtype, gen, std=0.5)
    return (x, weight, bias)
