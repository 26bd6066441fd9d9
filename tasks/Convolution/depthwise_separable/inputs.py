import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, K = shape["N"], shape["C"], shape["H"], shape["W"], shape["K"]
    # Fan-in scaled weights keep h and y O(1). Outliers amplified 10 (they pass through two
    # stages; products stay inside float16).
    x = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode, scale=10.0)
    w_dw = normal((C, 1, 3, 3), dtype, gen, std=1 / 3)
    b_dw = normal((C,), dtype, gen, std=0.5)
    w_pw = normal((K, C, 1, 1), dtype, gen, std=C ** -0.5)
    b_pw = normal((K,), dtype, gen, std=0.5)
    return (x, w_dw, b_dw, w_pw, b_pw)
