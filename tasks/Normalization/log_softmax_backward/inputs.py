import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    logits = normal((M, N), "float32", gen, std=3.0)
    if mode == "outlier" and M >= 2:
        logits[M - 1, 0] = 50.0  # edge case: a nearly one-hot row (out ~0 there, << 0 elsewhere)
    out = torch.log_softmax(logits, dim=-1).to(getattr(torch, dtype))
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=100.0)
    return (out, grad_out)
