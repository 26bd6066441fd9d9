import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, D, BS, L = (shape[s] for s in ("B", "H", "HKV", "D", "BS", "L"))
    MAXB = -(-L // BS)
    NB = B * MAXB + 3  # a few blocks belong to no sequence
    dev = gen.device
    q = maybe_outliers(normal((B, H, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((NB, BS, HKV, D), dtype, gen)  # token-major first, re-laid out below
    v = maybe_outliers(normal((NB, BS, HKV, D), dtype, gen), gen, mode, scale=1e2)
    perm = torch.randperm(NB, generator=gen, device=dev)  # distinct blocks in random order
    block_tables = perm[: B * MAXB].view(B, MAXB).to(torch.int32)
    lens = integers((B,), (L + 1) // 2, L + 1, gen)
    lens[0] = L
    if mode == "outlier" and B >= 2:
        lens[1] = 1  # a single cached token: out = its value
    token = torch.arange(MAXB * BS, device=dev).view(1, MAXB, BS)
    owned = token < lens.view(B, 1, 1)
    valid = torch.zeros((NB, BS), dtype=torch.bool, device=dev)
    valid[block_tables.long().flatten()] = owned.view(B * MAXB, BS)  # distinct indices
    stale = ~valid[:, :, None, None]
    k = torch.where(stale, torch.full_like(k, 300.0), k)
    v = torch.where(stale, torch.full_like(v, -3000.0), v)
    X = 16 // k.element_size()
    k_cache = k.view(NB, BS, HKV, D // X, X).permute(0, 2, 3, 1, 4).contiguous()
    v_cache = v.permute(0, 2, 3, 1).contiguous()
    # BLOOM's slopes (2^(-8 (i + 1) / H)) in a shuffled order; head 0 unbiased
    slopes = torch.pow(2.0, -8.0 * torch.arange(1, H + 1, device=dev, dtype=torch.float32) / H)
    slopes = slopes[torch.randperm(H, generator=gen, device=dev)]
    slopes[0] = 0.0
    return (q, k_cache, v_cache, block_tables, lens.to(torch.int32), slopes, D ** -0.5)
