import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, E, C, DM = shape["T"], shape["E"], shape["C"], shape["DM"]
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    logits = normal((T, E), dtype, gen, std=2.0)
    logits[:, 0] += 2.0  # a popular expert: more than C tokens choose it, the later ones drop
    if mode == "outlier":
        coarse = torch.round(logits.float())  # ties: the smaller expert index wins
        rows = torch.rand((T, 1), generator=gen, device=gen.device) < 0.3
        logits = torch.where(rows, coarse.to(logits.dtype), logits)
        logits[-1] = 1.0  # an all-equal row: expert 0
    return (x, logits, C)
