import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def cos_sin_cache(P: int, R: int, device, base: float = 10000.0) -> torch.Tensor:
    inv_freq = 1.0 / (base ** (torch.arange(0, R, 2, device=device, dtype=torch.float32) / R))
    angles = torch.arange(P, device=device, dtype=torch.float32)[:, None] * inv_freq[None, :]
    return torch.cat([angles.cos(), angles.sin()], dim=1).contiguous()


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, H, D, R, P = shape["T"], shape["H"], shape["D"], shape["R"], shape["P"]
    positions = integers((T,), 0, P, gen)
    positions[0] = P - 1
    if T > 1:
        positions[1] = 0
    x = normal((T, H * D), dtype, gen)
    grad_out = maybe_outliers(normal((T, H * D), dtype, gen), gen, mode)
    return (positions, x, cos_sin_cache(P, R, gen.device), D, grad_out)
