import torch

from kgb.tasks.inputs import integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    # a skewed distribution: squared uniforms favour the low bins, like token frequencies
    u = torch.rand((N,), generator=gen, device=gen.device)
    idx = (u * u * C).long().clamp(0, C - 1)
    pos = torch.arange(N, device=gen.device)
    first = integers((1,), 0, N, gen)
    last = (first + 1 + integers((1,), 0, max(N - 1, 1), gen)) % N
    idx = torch.where(pos == first, 0, idx)
    idx = torch.where(pos == last, C - 1, idx)
    if mode == "outlier":
        hot = integers((1,), 0, C, gen)  # one bin takes a third of the ids
        idx = torch.where(torch.rand((N,), generator=gen, device=gen.device) < 0.33, hot, idx)
    return (idx, C)
