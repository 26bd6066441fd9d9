import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, SMAX, D = shape["B"], shape["H"], shape["HKV"], shape["SMAX"], shape["D"]
    q = maybe_outliers(normal((B, H, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k_new = normal((B, HKV, D), dtype, gen)
    v_new = maybe_outliers(normal((B, HKV, D), dtype, gen), gen, mode, scale=1e1)
    k_cache = normal((B, HKV, SMAX, D), dtype, gen)
    v_cache = normal((B, HKV, SMAX, D), dtype, gen)
    seqlens = integers((B,), 0, SMAX, gen, dtype=torch.int32)  # tokens before the new one
    # slots at and past each sequence's length hold stale values from earlier requests: large,
    # so a kernel that reads past the length is far off
    pos = torch.arange(SMAX, device=gen.device)
    stale = (pos[None, :] > seqlens[:, None].long())[:, None, :, None]
    k_cache = torch.where(stale, (k_cache.float() * 30).to(k_cache.dtype), k_cache)
    v_cache = torch.where(stale, (v_cache.float() * 30).to(v_cache.dtype), v_cache)
    out = normal((B, H, D), dtype, gen)  # the preallocated output: overwritten
    if mode == "outlier":
        seqlens[0] = 0  # only the new token: o = v_new
        if B >= 2:
            seqlens[-1] = SMAX - 1  # the new token fills the last slot
    return (q, k_new, v_new, k_cache, v_cache, seqlens, D ** -0.5, out)
