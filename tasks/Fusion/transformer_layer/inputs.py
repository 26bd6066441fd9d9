import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, DM, H, F = (shape[s] for s in ("B", "S", "DM", "H", "F"))
    x = maybe_outliers(normal((B, S, DM), dtype, gen), gen, mode, scale=1e1)
    attn_norm_w = normal((DM,), dtype, gen, std=0.2, mean=1.0)
    # q/k rows scaled by 2: attention neither uniform nor one-hot
    w_qkv = normal((3 * DM, DM), dtype, gen, std=DM ** -0.5)
    w_qkv[: 2 * DM] *= 1.5
    w_o = normal((DM, DM), dtype, gen, std=DM ** -0.5)
    mlp_norm_w = normal((DM,), dtype, gen, std=0.2, mean=1.0)
    w_gate = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_up = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_down = normal((DM, F), dtype, gen, std=F ** -0.5)
    return (x, attn_norm_w, w_qkv, w_o, mlp_norm_w, w_gate, w_up, w_down, H)
