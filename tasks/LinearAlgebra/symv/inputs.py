import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform

_JUNK = 1.0e4  # the strict upper triangle: a kernel that reads it is wrong by orders of magnitude


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """a [N, N] whose lower triangle (diagonal included) holds the symmetric matrix and whose
    strict upper triangle holds junk, x [N] (std N^-1/2), y [N], alpha and beta Python floats
    (beta may be 0: y is then not read into the result)."""
    n = shape["N"]
    a = maybe_outliers(normal((n, n), dtype, gen), gen, mode, scale=1e2)
    upper = torch.ones((n, n), dtype=torch.bool, device=gen.device).triu(1)
    a = a.masked_fill(upper, _JUNK)
    x = maybe_outliers(normal((n,), dtype, gen, std=n ** -0.5), gen, mode, scale=1e2)
    y = normal((n,), dtype, gen)
    alpha = round(float(uniform((1,), "float32", gen, 0.5, 2.0)[0]) * 64) / 64
    beta = round(float(uniform((1,), "float32", gen, -1.0, 1.0)[0]) * 64) / 64
    if mode == "outlier":
        beta = 0.0
    return (alpha, a, x, beta, y)
