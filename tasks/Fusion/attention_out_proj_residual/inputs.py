import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, H, D, DM = (shape[s] for s in ("B", "S", "H", "D", "DM"))
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e1)
    w_o = normal((DM, H * D), dtype, gen, std=(H * D) ** -0.5)
    residual = normal((B, S, DM), dtype, gen)
    return (q, k, v, w_o, residual, D ** -0.5)
