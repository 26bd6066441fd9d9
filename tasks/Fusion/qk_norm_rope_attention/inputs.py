import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, S, D = shape["B"], shape["H"], shape["HKV"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=3.0), gen, mode, scale=1e2)
    k = maybe_outliers(normal((B, HKV, S, D), dtype, gen, std=0.5), gen, mode, scale=1e2)
    v = maybe_outliers(normal((B, HKV, S, D), dtype, gen), gen, mode, scale=1e2)
    q_weight = normal((D,), dtype, gen, std=0.3, mean=1.0)
    k_weight = normal((D,), dtype, gen, std=0.3, mean=1.0)
    half = D // 2
    inv_freq = 1.0 / (1e6 ** (torch.arange(half, device=gen.device, dtype=torch.float32) / half))
    angles = torch.arange(S, device=gen.device, dtype=torch.float32)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()
    if mode == "outlier":
        q[:, 0, -1] = 0  # an all-zero query row: normalized to 0 (eps keeps it finite)
        k[:, :, 0] = 1e-3  # a tiny key row: normalization makes it O(1)
    return (q, k, v, q_weight, k_weight, cos, sin, 1e-6, D ** -0.5)
