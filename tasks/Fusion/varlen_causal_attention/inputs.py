import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, L, H, HKV, D = (shape[s] for s in ("B", "L", "H", "HKV", "D"))
    lens = integers((B,), (L + 1) // 2, L + 1, gen)
    lens[0] = L
    if mode == "outlier" and B >= 2:
        lens[-1] = 1  # a one-token sequence at the end of the pack
    cu_seqlens = torch.zeros((B + 1,), dtype=torch.int32, device=gen.device)
    cu_seqlens[1:] = torch.cumsum(lens, 0).to(torch.int32)
    T = int(cu_seqlens[-1].item())
    q = maybe_outliers(normal((T, H, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((T, HKV, D), dtype, gen)
    v = maybe_outliers(normal((T, HKV, D), dtype, gen), gen, mode, scale=1e2)
    return (q, k, v, cu_seqlens, L, D ** -0.5)
