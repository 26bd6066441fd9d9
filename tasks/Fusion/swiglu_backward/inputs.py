import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # outliers amplified 1e2 (a in the hundreds: sigmoid saturates, products stay finite)
    x = maybe_outliers(normal((M, 2 * N), dtype, gen, std=2.0), gen, mode, scale=1e2)
    grad_out = normal((M, N), dtype, gen)
    if mode == "outlier":
        x[0, :N] = 0  # a = 0: s = 1/2, d/da = u / 2, d/du = 0
    return (x, grad_out)
