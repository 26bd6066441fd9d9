import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    p = torch.rand((M, 1), generator=gen, device=gen.device)  # per-row density of True
    cond = torch.rand((M, N), generator=gen, device=gen.device) < p
    if mode == "outlier" and M >= 2:
        cond[0] = True
        cond[-1] = False
    a = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    b = normal((1, N), dtype, gen, std=3.0, mean=5.0)
    return (cond, a, b)
