import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, K = shape["N"], shape["C"], shape["H"], shape["W"], shape["K"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    x = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((K, C, 3, 3), dtype, gen, std=(9 * C) ** -0.5), gen, mode,
                       scale=1e2)
    b = normal((K,), dtype, gen)
    return (x, w, b)
