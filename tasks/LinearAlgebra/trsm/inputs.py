import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """a [N, N] upper triangular and well conditioned (diagonal in [1, 2], strictly-upper
    entries of std 0.5 / sqrt(N): condition number ~3 at any N), the strict lower triangle
    garbage (large values; NaN in outlier mode) that must not be read; b [N, K]."""
    n, k = shape["N"], shape["K"]
    dev = gen.device
    off = normal((n, n), "float32", gen, std=0.5 * n ** -0.5)
    diag = uniform((n,), "float32", gen, 1.0, 2.0)
    garbage = normal((n, n), "float32", gen, std=1e3)
    if mode == "outlier":
        garbage = torch.full_like(garbage, float("nan"))
    upper = torch.ones((n, n), dtype=torch.bool, device=dev).triu(1)
    eye = torch.eye(n, dtype=torch.bool, device=dev)
    a = torch.where(upper, off, torch.where(eye, torch.diag(diag), garbage))
    b = maybe_outliers(normal((n, k), "float32", gen), gen, mode, scale=1e2)
    if mode == "outlier" and k > 1:
        b[:, 0] = 0  # an all-zero right-hand side: that column of x is 0
    return (a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype)))
