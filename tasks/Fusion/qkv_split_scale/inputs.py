import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, H, HKV, D = shape["B"], shape["S"], shape["H"], shape["HKV"], shape["D"]
    qkv = maybe_outliers(normal((B, S, (H + 2 * HKV) * D), dtype, gen), gen, mode)
    scale = D ** -0.5 * (1.0 + 0.1 * torch.rand((1,), generator=gen, device=gen.device).item())
    return (qkv, H, HKV, scale)
