import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, N = shape["M"], shape["K"], shape["N"]
    # Forward: y [M, N] = x [M, K] @ w[N, K].T + b. grad_out has std 1; x has std M^-1/2 and
    # w std N^-1/2 so that dx, dw are O(1). Outliers amplified 1e2 (a product of two stays
    # inside float16); outlier mode also zeroes the first token's gradient row.
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        grad_out[0] = 0
    w = maybe_outliers(normal((N, K), dtype, gen, std=N ** -0.5), gen, mode, scale=1e2)
    return (grad_out, w)
