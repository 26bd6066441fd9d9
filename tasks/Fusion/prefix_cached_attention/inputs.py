import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, SQ, SK, D = (shape[s] for s in ("B", "H", "HKV", "SQ", "SK", "D"))
    q = maybe_outliers(normal((B, H, SQ, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, HKV, SK, D), dtype, gen)
    v = maybe_outliers(normal((B, HKV, SK, D), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        # a key strongly aligned with the first new query, one position past what it may see:
        # a top-left (SDPA-style) or off-by-one mask lets it dominate that row
        j = SK - SQ + 1
        if j < SK:
            k[:, :, j] = (4.0 * q[:, 0, 0].float().sign())[:, None, :].to(k.dtype)
    return (q, k, v, D ** -0.5)
