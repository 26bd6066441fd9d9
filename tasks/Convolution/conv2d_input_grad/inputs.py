import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, K = shape["N"], shape["C"], shape["H"], shape["W"], shape["K"]
    # w with std (9 K)^-1/2 keeps dx O(1) (its reduction runs over K channels and 9 taps).
    # Outliers amplified 1e2: a product of two stays inside float16.
    grad_out = maybe_outliers(normal((N, K, H, W), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((K, C, 3, 3), dtype, gen, std=(9 * K) ** -0.5), gen, mode,
                       scale=1e2)
    if mode == "outlier":
        grad_out[0, 0] = 0  # a zero gradient plane
    return (grad_out, w)
