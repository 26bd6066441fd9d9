import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, V, D = shape["B"], shape["S"], shape["V"], shape["D"]
    T = B * S
    idx = integers((T,), 0, V, gen)
    pos = torch.arange(T, device=gen.device)
    first = integers((1,), 0, T, gen)
    last = (first + 1 + integers((1,), 0, max(T - 1, 1), gen)) % T
    idx = torch.where(pos == first, 0, idx)
    idx = torch.where(pos == last, V - 1, idx)
    if mode == "outlier":
        # a hot token (a padding or BOS id): a fifth of the positions
        hot = integers((1,), 0, V, gen)
        idx = torch.where(torch.rand((T,), generator=gen, device=gen.device) < 0.2, hot, idx)
    weight = normal((V, D), dtype, gen)
    grad_out = maybe_outliers(normal((B, S, D), dtype, gen), gen, mode)
    return (idx.reshape(B, S), weight, grad_out)
