import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, DL, DR, BS, L = (shape[s] for s in ("B", "H", "DL", "DR", "BS", "L"))
    MAXB = -(-L // BS)
    NB = B * MAXB + 3  # a few blocks belong to no sequence
    dev = gen.device
    q = maybe_outliers(normal((B, H, DL + DR), dtype, gen, std=1.5), gen, mode, scale=1e1)
    kv_cache = maybe_outliers(normal((NB, BS, DL + DR), dtype, gen), gen, mode, scale=1e2)
    perm = torch.randperm(NB, generator=gen, device=dev)  # distinct blocks in random order
    block_tables = perm[: B * MAXB].view(B, MAXB).to(torch.int32)
    lens = integers((B,), (L + 1) // 2, L + 1, gen)
    lens[0] = L
    if mode == "outlier" and B >= 2:
        lens[1] = 1  # a single cached token: out = its latent
    # stale data in every slot no sequence owns: large finite values
    token = torch.arange(MAXB * BS, device=dev).view(1, MAXB, BS)
    owned = token < lens.view(B, 1, 1)
    valid = torch.zeros((NB, BS), dtype=torch.bool, device=dev)
    valid[block_tables.long().flatten()] = owned.view(B * MAXB, BS)  # distinct indices
    kv_cache = torch.where(valid[:, :, None], kv_cache, torch.full_like(kv_cache, 300.0))
    return (q, kv_cache, block_tables, lens.to(torch.int32), DL, (DL + DR) ** -0.5)
