import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # Outliers (values in the thousands) only in the gate half: erf saturates there. An outlier
    # in the up half would multiply the float32 rounding of 1 + erf(a) near a ~ -4 (a
    # cancellation every erf has) by 1e3 and measure the erf implementation, not the kernel.
    gate = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    up = normal((M, N), dtype, gen, std=2.0)
    if mode == "outlier":
        up[-1] = 0  # a zero up row: out is exactly 0 there
    return (torch.cat([gate, up], dim=1),)
