import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    logits = maybe_outliers(normal((N, C), dtype, gen, std=2.0), gen, mode)
    target = integers((N,), 0, C, gen)
    ignored = torch.rand((N,), generator=gen, device=gen.device) < 0.2
    target = torch.where(ignored, torch.full_like(target, -100), target)
    if mode == "outlier":
        target[0] = C - 1  # the last class
        target[-1] = 0  # the first class
        if N >= 3:
            logits[1] = 7.0  # an all-equal row: loss = log(C)
    return (logits, target)
