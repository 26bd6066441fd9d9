import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    cap = round(20.0 + 30.0 * torch.rand((1,), generator=gen, device=gen.device).item(), 2)
    # std 15: logits range over the whole curved part of the cap; outliers saturate it
    x = maybe_outliers(normal((M, N), dtype, gen, std=15.0), gen, mode)
    if mode == "outlier":
        x[0, :] = 0.0  # an all-equal row: uniform probabilities
    return (x, cap)
