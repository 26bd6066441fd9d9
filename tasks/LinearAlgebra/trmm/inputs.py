import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, R = shape["N"], shape["R"]
    dev = gen.device
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    a = maybe_outliers(normal((N, N), "float32", gen), gen, mode, scale=1e2)
    # The strict upper triangle is garbage: large values, or NaN in outlier mode.
    garbage = normal((N, N), "float32", gen, std=1e3)
    if mode == "outlier":
        garbage = torch.full_like(garbage, float("nan"))
    upper = torch.ones((N, N), dtype=torch.bool, device=dev).triu(1)
    a = torch.where(upper, garbage, a).to(getattr(torch, dtype))
    x = maybe_outliers(normal((N, R), dtype, gen, std=N ** -0.5), gen, mode, scale=1e2)
    return (a, x)
