import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, D, S = (shape[s] for s in ("B", "H", "HKV", "D", "S"))
    q = maybe_outliers(normal((B, H, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, HKV, S, D), dtype, gen)
    v = maybe_outliers(normal((B, HKV, S, D), dtype, gen), gen, mode, scale=1e2)
    lens = integers((B,), (S + 1) // 2, S + 1, gen)
    lens[0] = S
    if mode == "outlier" and B >= 2:
        lens[1] = 1
    # stale cache entries past each sequence's length: large finite values
    stale = (torch.arange(S, device=gen.device)[None, :] >= lens[:, None])[:, None, :, None]
    k = torch.where(stale, torch.full_like(k, 300.0), k)
    v = torch.where(stale, torch.full_like(v, -3000.0), v)
    return (q, k, v, lens.to(torch.int32), D ** -0.5)
