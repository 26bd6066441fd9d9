import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    inp = maybe_outliers(normal((M, N), dtype, gen, std=1.5), gen, mode)
    target = normal((M, N), dtype, gen, std=0.5)
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    delta = round(0.5 + 2.5 * u, 3)
    return (inp, target, delta)
