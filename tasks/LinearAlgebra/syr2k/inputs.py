import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def _scalar(gen: torch.Generator, low: float, high: float) -> float:
    # A Python float drawn from gen, rounded to 1/64 (exact in every float format).
    return round(float(uniform((1,), "float32", gen, low, high)[0]) * 64) / 64


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, K = shape["N"], shape["K"]
    # std K^-1/4: a b^T is O(1); outliers amplified 1e2 so products stay inside float16
    a = maybe_outliers(normal((N, K), dtype, gen, std=K ** -0.25), gen, mode, scale=1e2)
    b = maybe_outliers(normal((N, K), dtype, gen, std=K ** -0.25), gen, mode, scale=1e2)
    c = maybe_outliers(normal((N, N), dtype, gen), gen, mode, scale=1e2)
    alpha = _scalar(gen, 0.5, 2.0) * (1.0 if _scalar(gen, 0.0, 1.0) < 0.5 else -1.0)
    beta = _scalar(gen, -1.0, 1.0)
    if mode == "outlier":
        a[0] = 0  # row 0 of a zero: out[0, j] = alpha * a[j] . b[0] + beta * c[0, j]
    return (a, b, c, alpha, beta)
