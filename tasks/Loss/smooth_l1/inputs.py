import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    inp = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    target = normal((M, N), dtype, gen, std=0.5, mean=0.25)
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    beta = round(0.1 + 1.9 * u, 3)
    return (inp, target, beta)
