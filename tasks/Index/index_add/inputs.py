import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    V, T, D = shape["V"], shape["T"], shape["D"]
    x = maybe_outliers(normal((V, D), dtype, gen), gen, mode)
    idx = integers((T,), 0, V, gen)
    pos = torch.arange(T, device=gen.device)
    first = integers((1,), 0, T, gen)
    last = (first + 1 + integers((1,), 0, max(T - 1, 1), gen)) % T
    idx = torch.where(pos == first, 0, idx)
    idx = torch.where(pos == last, V - 1, idx)
    if mode == "outlier":
        # a hot row: about a quarter of the tokens add into one row
        hot = integers((1,), 0, V, gen)
        idx = torch.where(torch.rand((T,), generator=gen, device=gen.device) < 0.25, hot, idx)
    src = maybe_outliers(normal((T, D), dtype, gen), gen, mode)
    return (x, idx, src)
