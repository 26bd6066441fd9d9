import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    x = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode)
    grad_out = maybe_outliers(normal((N, C, (H - 3) // 2 + 1, (W - 3) // 2 + 1), dtype, gen),
                              gen, mode)
    return (x, grad_out)
