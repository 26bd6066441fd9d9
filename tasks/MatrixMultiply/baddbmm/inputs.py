import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def _scalar(gen: torch.Generator, low: float, high: float) -> float:
    # A Python float drawn from gen, rounded to 1/64 (exact in every float format).
    return round(float(uniform((1,), "float32", gen, low, high)[0]) * 64) / 64


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, M, K, N = shape["B"], shape["M"], shape["K"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    c = normal((B, M, N), dtype, gen)
    a = maybe_outliers(normal((B, M, K), dtype, gen), gen, mode, scale=1e2)
    b = maybe_outliers(normal((B, K, N), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
    alpha = _scalar(gen, 0.5, 2.0) * (1.0 if _scalar(gen, 0.0, 1.0) < 0.5 else -1.0)
    beta = _scalar(gen, -1.0, 1.0)
    if mode == "outlier":
        # beta == 0: c is ignored, so its NaN/Inf must not propagate.
        beta = 0.0
        c = maybe_outliers(c, gen, mode)
        c[0] = float("nan")
        c[-1, -1] = float("inf")
    elif beta == 0.0:
        beta = 0.5
    return (c, a, b, beta, alpha)
