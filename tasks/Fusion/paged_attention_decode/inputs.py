import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, D, BS, L = (shape[s] for s in ("B", "H", "HKV", "D", "BS", "L"))
    MAXB = -(-L // BS)
    NB = B * MAXB + 3  # a few blocks belong to no sequence
    dev = gen.device
    q = maybe_outliers(normal((B, H, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k_cache = normal((NB, BS, HKV, D), dtype, gen)
    v_cache = maybe_outliers(normal((NB, BS, HKV, D), dtype, gen), gen, mode, scale=1e2)
    # every table entry is a distinct physical block, in random order
    perm = torch.randperm(NB, generator=gen, device=dev)
    block_tables = perm[: B * MAXB].view(B, MAXB).to(torch.int32)
    lens = integers((B,), (L + 1) // 2, L + 1, gen)
    lens[0] = L
    if mode == "outlier" and B >= 2:
        lens[1] = 1  # a single cached token: out = its value
    context_lens = lens.to(torch.int32)
    # stale data in every slot no sequence owns: large finite values
    token = torch.arange(MAXB * BS, device=dev).view(1, MAXB, BS)
    owned = token < lens.view(B, 1, 1)  # [B, MAXB, BS]
    valid = torch.zeros((NB, BS), dtype=torch.bool, device=dev)
    valid[block_tables.long().flatten()] = owned.view(B * MAXB, BS)  # distinct indices
    stale = ~valid[:, :, None, None]
    k_cache = torch.where(stale, torch.full_like(k_cache, 300.0), k_cache)
    v_cache = torch.where(stale, torch.full_like(v_cache, -3000.0), v_cache)
    return (q, k_cache, v_cache, block_tables, context_lens, D ** -0.5)
