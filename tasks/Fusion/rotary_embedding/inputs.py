import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, H, HKV, D, P = shape["T"], shape["H"], shape["HKV"], shape["D"], shape["P"]
    positions = integers((T,), 0, P, gen)
    if mode == "outlier":
        positions[0] = 0  # identity rotation
        positions[-1] = P - 1  # the last cache row
    q = maybe_outliers(normal((T, H, D), dtype, gen), gen, mode)
    k = maybe_outliers(normal((T, HKV, D), dtype, gen), gen, mode)
    half = D // 2
    inv_freq = 10000.0 ** (-torch.arange(half, device=gen.device, dtype=torch.float64) / half)
    angles = torch.arange(P, device=gen.device, dtype=torch.float64)[:, None] * inv_freq[None, :]
    cos_sin_cache = torch.cat([angles.cos(), angles.sin()], dim=1).to(q.dtype)
    return (positions, q, k, cos_sin_cache)
