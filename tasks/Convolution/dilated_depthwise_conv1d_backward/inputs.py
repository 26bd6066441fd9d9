import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, L = shape["N"], shape["C"], shape["L"]
    # grad_out std 1, w std 1/2 (grad_x sums 3 terms), x std (N L)^-1/2 (grad_w sums N L).
    # Outliers amplified 1e2: a product of two stays inside float16.
    x = maybe_outliers(normal((N, C, L), dtype, gen, std=(N * L) ** -0.5), gen, mode, scale=1e2)
    w = maybe_outliers(normal((C, 1, 3), dtype, gen, std=0.5), gen, mode, scale=1e2)
    grad_out = maybe_outliers(normal((N, C, L), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        grad_out[:, -1] = 0  # a channel without gradient: grad_x[:, -1] = 0, grad_w[-1] = 0
    return (x, w, grad_out)
