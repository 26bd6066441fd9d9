import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    x = maybe_outliers(uniform((M, N), dtype, gen, -1.5, 1.5), gen, mode, scale=100.0)
    scale = torch.pow(1.5, -torch.arange(K, device=gen.device, dtype=torch.float32))
    coeffs = torch.randn((K,), generator=gen, device=gen.device) * scale
    return (x, coeffs)
