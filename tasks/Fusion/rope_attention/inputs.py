import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e2)
    half = D // 2
    base = 10000.0 * (1.0 + torch.rand((1,), generator=gen, device=gen.device).item())
    inv_freq = base ** (-torch.arange(half, device=gen.device, dtype=torch.float64) / half)
    angles = torch.arange(S, device=gen.device, dtype=torch.float64)[:, None] * inv_freq[None, :]
    return (q, k, v, angles.cos().float(), angles.sin().float(), D ** -0.5)
