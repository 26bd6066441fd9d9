import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, N, K, D = shape["B"], shape["N"], shape["K"], shape["D"]
    x = maybe_outliers(normal((B, N, D), dtype, gen), gen, mode)
    idx = integers((B, K), 0, N, gen)
    pos = torch.arange(K, device=gen.device)
    first = integers((B, 1), 0, K, gen)
    last = (first + 1 + integers((B, 1), 0, max(K - 1, 1), gen)) % K
    idx = torch.where(pos == first, 0, idx)
    idx = torch.where(pos == last, N - 1, idx)
    return (x, idx)
