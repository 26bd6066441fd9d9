import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, K = shape["N"], shape["C"], shape["H"], shape["W"], shape["K"]
    # grad_out with std (N H W)^-1/2 keeps dw O(1) (its reduction runs over every pixel).
    # Outliers amplified 1e2: a product of two stays inside float16.
    x = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode, scale=1e2)
    grad_out = maybe_outliers(normal((N, K, H, W), dtype, gen, std=(N * H * W) ** -0.5), gen,
                              mode, scale=1e2)
    if mode == "outlier":
        x[:, 0] = 0  # an all-zero input channel: dw[:, 0] = 0
    return (x, grad_out)
