import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    a = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    # Outliers in x amplified 1e2: alpha * x * y stays inside float16.
    x = maybe_outliers(normal((M,), dtype, gen), gen, mode, scale=1e2)
    y = normal((N,), dtype, gen)
    alpha = round(float(uniform((1,), "float32", gen, 0.5, 2.0)[0]) * 64) / 64
    if float(uniform((1,), "float32", gen)[0]) < 0.5:
        alpha = -alpha
    if mode == "outlier":
        x[0] = 0  # row 0 of the output is a passed through
    return (a, x, y, alpha)
