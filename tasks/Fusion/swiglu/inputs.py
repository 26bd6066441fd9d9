import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # outliers amplified 1e2: silu(a) * u of two of them stays inside float16
    x = maybe_outliers(normal((M, 2 * N), dtype, gen, std=2.0), gen, mode, scale=1e2)
    if mode == "outlier":
        x[0, :N] = 0  # a zero gate row: out is exactly 0 there
    return (x,)
