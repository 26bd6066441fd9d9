import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier":
        # exact zeros: x = 0 takes the slope branch and adds nothing to grad_weight
        x = torch.where(torch.rand((M, N), generator=gen, device=gen.device) < 0.05,
                        torch.zeros((), dtype=x.dtype, device=x.device), x)
    weight = normal((N,), dtype, gen, std=0.3, mean=0.25)
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    return (x, weight, grad_out)
