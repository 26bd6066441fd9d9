import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    x = normal((M, N), dtype, gen)
    idx = integers((M, K), 0, N, gen)
    cols = torch.arange(K, device=gen.device)
    first = integers((M, 1), 0, K, gen)
    last = (first + 1 + integers((M, 1), 0, max(K - 1, 1), gen)) % K
    idx = torch.where(cols == first, 0, idx)
    idx = torch.where(cols == last, N - 1, idx)
    if mode == "outlier":
        # a hot column per row: a third of the gathers read it
        hot = integers((M, 1), 0, N, gen)
        idx = torch.where(torch.rand((M, K), generator=gen, device=gen.device) < 0.3, hot, idx)
    grad_out = maybe_outliers(normal((M, K), dtype, gen), gen, mode)
    return (x, idx, grad_out)
