import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    # grad_out std 1, w std 1/3 (dx sums 9 terms), x std (N H W)^-1/2 (dw sums N H W terms).
    # Outliers amplified 1e2: a product of two stays inside float16.
    x = maybe_outliers(normal((N, C, H, W), dtype, gen, std=(N * H * W) ** -0.5), gen, mode,
                       scale=1e2)
    w = maybe_outliers(normal((C, 1, 3, 3), dtype, gen, std=1 / 3), gen, mode, scale=1e2)
    grad_out = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        grad_out[:, -1] = 0  # a channel without gradient: dx[:, -1] = 0, dw[-1] = 0
    return (x, w, grad_out)
