import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, N = shape["B"], shape["N"]
    # Outliers in x amplified 1e2: a product stays inside float16.
    x = maybe_outliers(normal((B, N), dtype, gen), gen, mode, scale=1e2)
    y = normal((B, N), dtype, gen, std=N ** -0.5)
    if mode == "outlier":
        x[0] = 0  # an all-zero row: out[0] = 0
        if B > 1:
            # a row dotted with (a scaled copy of) itself: a positive sum without cancellation
            y[-1] = (x[-1].float() * N ** -0.5).to(y.dtype)
    return (x, y)
