import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, N = shape["B"], shape["N"]
    dev = gen.device
    # Well conditioned lower triangle: diagonal in [1, 2], strictly-lower entries of std
    # 0.5 / sqrt(N) (condition number ~3 at any N). The strict upper triangle is garbage:
    # large random values, or NaN in outlier mode; it must not be read into the result.
    off = normal((B, N, N), "float32", gen, std=0.5 * N ** -0.5)
    diag = uniform((B, N), "float32", gen, 1.0, 2.0)
    garbage = normal((B, N, N), "float32", gen, std=1e3)
    if mode == "outlier":
        garbage = torch.full_like(garbage, float("nan"))
    lower = torch.ones((N, N), dtype=torch.bool, device=dev).tril(-1)
    eye = torch.eye(N, dtype=torch.bool, device=dev)
    l = torch.where(lower, off, torch.where(eye, torch.diag_embed(diag), garbage))
    b = maybe_outliers(normal((B, N), "float32", gen), gen, mode, scale=1e2)
    if mode == "outlier":
        b[0] = 0  # an all-zero right-hand side: x[0] = 0
    return (l.to(getattr(torch, dtype)), b.to(getattr(torch, dtype)))
