import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    inp = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    target = normal((M, N), dtype, gen, std=0.5, mean=0.25)
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    delta = round(0.5 + 2.5 * u, 3)
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    return (inp, target, delta, grad_out)
