import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # outliers amplified 1e2: some squares overflow float16 to +inf, most stay finite
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    b = normal((N,), dtype, gen, std=0.5)
    if mode == "outlier":
        x[:, 0] = -b[0]  # h exactly 0: the ReLU boundary
    return (x, b)
