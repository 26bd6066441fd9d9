import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    alpha = round(float(uniform((1,), "float32", gen, 0.5, 2.0)[0]) * 64) / 64
    if float(uniform((1,), "float32", gen)[0]) < 0.5:
        alpha = -alpha
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    y = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    if mode == "outlier":
        # Near-total cancellation on the first row (no outliers there): y = -alpha * x rounded
        # to the dtype, so the output is only the rounding residue.
        x[0] = normal((N,), dtype, gen)
        y[0] = (-alpha * x[0].double()).to(y.dtype)
    return (alpha, x, y)
