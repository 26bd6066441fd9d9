import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    b = normal((N,), dtype, gen)
    u = torch.rand((3,), generator=gen, device=gen.device).tolist()
    scale = round(0.5 + 1.5 * u[0], 4)  # in [0.5, 2]
    lo = round(-1.0 - 3.0 * u[1], 3)  # in [-4, -1]
    hi = round(1.0 + 3.0 * u[2], 3)  # in [1, 4]
    return (x, b, scale, lo, hi)
