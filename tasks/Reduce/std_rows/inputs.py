import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen, std=2.0, mean=-0.5)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # Edge cases: mean ~64 with spread ~0.5 and a constant row (std 0).
        x[0] = (x[0].float() * 0.25 + 64.0).to(x.dtype)
        if M >= 2:
            x[M - 1] = -1.5
    return (x,)
