import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, N, D = shape["B"], shape["N"], shape["D"]
    x = maybe_outliers(normal((B, N, D), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier" and D >= 3:
        # Ties and signs: a constant column (index 0); a column whose maximum appears at
        # N // 2 and in the last position (index N // 2); an all-negative column.
        x[0, :, 0] = 0.25
        x[B - 1, N // 2, 1] = 4e4
        x[B - 1, N - 1, 1] = 4e4
        x[0, :, 2] = (-x[0, :, 2].float().abs() - 100.0).to(x.dtype)
    return (x,)
