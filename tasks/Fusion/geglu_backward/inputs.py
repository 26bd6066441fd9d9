import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # Outliers only in the gate half (erf saturates there). An outlier in the up half or in
    # grad_out would multiply the float32 rounding of 1 + erf(a) near a ~ -4 (a cancellation
    # every erf has) by 1e3 and measure the erf implementation, not the kernel.
    gate = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    up = normal((M, N), dtype, gen, std=2.0)
    grad_out = normal((M, N), dtype, gen)
    if mode == "outlier":
        gate[0] = 0  # a = 0: gelu'(0) = 1/2, gelu(0) = 0
    return (torch.cat([gate, up], dim=1), grad_out)
