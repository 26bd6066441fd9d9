import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, V = shape["M"], shape["V"]
    logits = maybe_outliers(normal((M, V), dtype, gen, std=3.0), gen, mode)
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    temperature = round(0.25 + 1.75 * u, 4)
    if mode == "outlier" and M >= 2:
        logits[M - 1] = -5.0  # edge case: a constant row gives the uniform distribution 1 / V
    return (logits, temperature)
