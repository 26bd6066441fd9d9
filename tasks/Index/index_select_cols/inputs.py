import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    idx = integers((K,), 0, N, gen)
    # columns 0 and N - 1 are selected, at random positions (bounds bugs)
    pos = torch.arange(K, device=gen.device)
    first = integers((1,), 0, K, gen)
    last = (first + 1 + integers((1,), 0, max(K - 1, 1), gen)) % K
    idx = torch.where(pos == first, 0, idx)
    idx = torch.where(pos == last, N - 1, idx)
    return (x, idx)
