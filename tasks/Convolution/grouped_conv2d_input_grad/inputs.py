import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, K, G = shape["N"], shape["C"], shape["H"], shape["W"], shape["K"], shape["G"]
    OH, OW = (H - 1) // 2 + 1, (W - 1) // 2 + 1
    x = normal((N, C, H, W), dtype, gen)
    # each dx element sums about (K/G) * 9/4 products: scale w so dx is O(1)
    w = normal((K, C // G, 3, 3), dtype, gen, std=(K / G * 2.25) ** -0.5)
    grad_out = maybe_outliers(normal((N, K, OH, OW), dtype, gen), gen, mode, scale=1e2)
    return (x, w, grad_out, G)
