import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen, std=1.5, mean=0.5)
    if mode == "outlier":
        # outliers ~1e2x: their squares stay inside the float16 range of the output
        x = maybe_outliers(x, gen, mode, scale=100.0)
        # Edge cases: mean ~64 with spread ~0.5 (a naive one-pass variance fails) and a
        # constant row (variance 0).
        x[0] = (x[0].float() * 0.33 + 64.0).to(x.dtype)
        if M >= 2:
            x[M - 1] = 3.0
    return (x,)
