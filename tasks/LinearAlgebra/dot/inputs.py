import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # Outliers in x amplified 1e2: a product stays inside float16.
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    y = normal((M, N), dtype, gen, std=(M * N) ** -0.5)
    if mode == "outlier":
        x[0] = 0  # a zero row contributes nothing
    return (x, y)
