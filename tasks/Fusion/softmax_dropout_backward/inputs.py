import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    logits = normal((M, N), "float32", gen, std=2.0)
    if mode == "outlier" and M >= 2:
        logits[M - 1, N // 2] = 1e3  # edge case: a one-hot row of y
    y = torch.softmax(logits, dim=-1).to(getattr(torch, dtype))
    u = torch.rand((1,), generator=gen, device=dev).item()
    p = round(0.05 + 0.45 * u, 3)
    keep = torch.rand((M, N), generator=gen, device=dev) >= p
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=100.0)
    return (y, keep, p, grad_out)
