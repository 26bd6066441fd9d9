import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    x1 = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    x2 = normal((M, N), dtype, gen)
    y = torch.where(torch.rand((M, N), generator=gen, device=dev) < 0.5, 1.0, -1.0).to(x1.dtype)
    margin = int(torch.randint(0, 9, (1,), generator=gen, device=dev).item()) / 8.0
    return (x1, x2, y, margin)
