import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    # Fan-in scaled weights keep h and y O(1). Outliers amplified 10 (they pass through two
    # convolutions; products stay inside float16).
    x = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode, scale=10.0)
    w1 = normal((C, C, 3, 3), dtype, gen, std=(9 * C) ** -0.5)
    b1 = normal((C,), dtype, gen, std=0.5)
    w2 = normal((C, C, 3, 3), dtype, gen, std=(9 * C) ** -0.5)
    b2 = normal((C,), dtype, gen, std=0.5)
    return (x, w1, b1, w2, b2)
