import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    L = ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1)
    cols = maybe_outliers(normal((N, C * 9, L), dtype, gen), gen, mode)
    return (cols, H, W)
