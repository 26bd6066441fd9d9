import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, N = shape["M"], shape["K"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    a = maybe_outliers(normal((M, K), dtype, gen), gen, mode, scale=1e2)
    b = maybe_outliers(normal((K, N), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
    if mode == "outlier":
        a[: min(M, 2)] = 0  # all-zero rows of a give all-zero rows of C
    return (a, b)
