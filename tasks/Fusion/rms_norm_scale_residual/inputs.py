import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    residual = normal((M, N), dtype, gen, std=2.0)
    weight = normal((N,), dtype, gen, std=0.3)
    alpha = round(0.25 + 1.5 * torch.rand((1,), generator=gen, device=gen.device).item(), 4)
    if mode == "outlier" and M >= 2:
        x[0] = 0  # out = residual on this row
    return (x, residual, weight, alpha)
