import torch

from kgb.tasks.inputs import integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    idx = integers((N,), 0, C, gen)
    pos = torch.arange(N, device=gen.device)
    first = integers((1,), 0, N, gen)
    last = (first + 1 + integers((1,), 0, max(N - 1, 1), gen)) % N
    idx = torch.where(pos == first, 0, idx)
    idx = torch.where(pos == last, C - 1, idx)
    if mode == "outlier":
        # long runs of one class
        hot = integers((1,), 0, C, gen)
        idx = torch.where(torch.rand((N,), generator=gen, device=gen.device) < 0.5, hot, idx)
    return (idx, C)
