import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # std M^-1/4 keeps G O(1); outliers amplified 10 (a square of one stays inside float16).
    x = maybe_outliers(normal((M, N), dtype, gen, std=M ** -0.25), gen, mode, scale=10.0)
    if mode == "outlier":
        x[:, 0] = 0  # an all-zero column: row and column 0 of G are zero
    return (x,)
