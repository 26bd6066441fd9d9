import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    mag = uniform((M, N), "float32", gen, 0.5, 2.0)
    sign = torch.where(torch.rand((M, N), generator=gen, device=gen.device) < 0.5, -1.0, 1.0)
    y = (mag * sign).to(getattr(torch, dtype))
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    return (x, y, grad_out)
