import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def _scalar(gen: torch.Generator, low: float, high: float) -> float:
    # A Python float drawn from gen (rounded to 1/64 so it is exact in every float format).
    v = float(uniform((1,), "float32", gen, low, high)[0])
    return round(v * 64) / 64


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K, N = shape["M"], shape["K"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    a = maybe_outliers(normal((M, K), dtype, gen), gen, mode, scale=1e2)
    b = maybe_outliers(normal((K, N), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
    c = normal((M, N), dtype, gen)
    sign = 1.0 if _scalar(gen, 0.0, 1.0) < 0.5 else -1.0
    alpha = sign * _scalar(gen, 0.5, 2.0)
    beta = _scalar(gen, -1.0, 1.0)
    if mode == "outlier":
        # The BLAS beta == 0 contract: c must not be read (NaN * 0 would poison D).
        beta = 0.0
        c = torch.full((M, N), float("nan"), dtype=c.dtype, device=c.device)
    elif beta == 0.0:
        beta = 0.25
    return (a, b, c, alpha, beta)
