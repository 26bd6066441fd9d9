import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    logits = normal((M, N), "float32", gen, std=2.0)
    if mode == "outlier" and M >= 2:
        logits[M - 1, N // 2] = 1e3  # edge case: a one-hot row of y (zero gradient)
    y = torch.softmax(logits, dim=-1).to(getattr(torch, dtype))
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=100.0)
    return (y, grad_out)
