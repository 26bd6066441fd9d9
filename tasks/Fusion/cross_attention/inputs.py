import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, SQ, SK, D = (shape[s] for s in ("B", "H", "SQ", "SK", "D"))
    q = maybe_outliers(normal((B, H, SQ, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, SK, D), dtype, gen)
    v = maybe_outliers(normal((B, H, SK, D), dtype, gen), gen, mode, scale=1e2)
    lens = integers((B,), (SK + 1) // 2, SK + 1, gen)
    lens[0] = SK
    if mode == "outlier" and B >= 2:
        lens[1] = 1  # a single encoder token: o = its value
    pad = (torch.arange(SK, device=gen.device)[None, :] >= lens[:, None])[:, None, :, None]
    k = torch.where(pad, torch.full_like(k, 300.0), k)  # garbage in the padding
    v = torch.where(pad, torch.full_like(v, -3000.0), v)
    return (q, k, v, lens.to(torch.int32), D ** -0.5)
