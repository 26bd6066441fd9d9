import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    x = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((C, 1, 3, 3), dtype, gen, std=1 / 3), gen, mode, scale=1e2)
    b = normal((C,), dtype, gen)
    if mode == "outlier":
        w[0] = 0  # channel 0 is the bias alone
    return (x, w, b)
