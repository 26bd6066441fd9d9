import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, H, HKV, D, NB, BS = (shape[s] for s in ("T", "DM", "H", "HKV", "D", "NB", "BS"))
    dev = gen.device
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    w_qkv = normal(((H + 2 * HKV) * D, DM), dtype, gen, std=DM ** -0.5)
    max_pos = 4 * T + 16
    positions = integers((T,), 0, max_pos, gen)
    positions[0] = max_pos - 1  # the last row of the table
    inv_freq = 10000.0 ** (-torch.arange(0, D, 2, device=dev, dtype=torch.float64) / D)
    ang = torch.arange(max_pos, device=dev, dtype=torch.float64)[:, None] * inv_freq[None, :]
    cos_sin_cache = torch.cat([ang.cos(), ang.sin()], dim=1).float()
    k_cache = normal((NB, BS, HKV, D), dtype, gen)  # stale entries: must survive bit for bit
    v_cache = normal((NB, BS, HKV, D), dtype, gen)
    slots = torch.randperm(NB * BS, generator=gen, device=dev)[:T]
    slots[T - 1] = -1  # a padding token
    if mode == "outlier" and T >= 3:
        positions[1] = 0  # no rotation
    return (x, w_qkv, positions, cos_sin_cache, k_cache, v_cache, slots, H, HKV)
