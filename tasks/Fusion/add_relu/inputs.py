import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    y = normal((M, N), dtype, gen)
    if mode == "outlier":
        # exact cancellations: out is exactly 0 there (ReLU's boundary)
        y[::2, ::3] = -x[::2, ::3]
    return (x, y)
