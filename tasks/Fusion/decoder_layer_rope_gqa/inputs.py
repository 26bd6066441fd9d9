import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, DM, H, HKV, D, F = (shape[s] for s in ("B", "S", "DM", "H", "HKV", "D", "F"))
    dev = gen.device
    x = maybe_outliers(normal((B, S, DM), dtype, gen), gen, mode, scale=1e1)
    attn_norm_w = normal((DM,), dtype, gen, std=0.2, mean=1.0)
    w_qkv = normal(((H + 2 * HKV) * D, DM), dtype, gen, std=DM ** -0.5)
    w_qkv[: (H + HKV) * D] *= 1.5  # q/k rows scaled: attention neither uniform nor one-hot
    w_o = normal((DM, H * D), dtype, gen, std=(H * D) ** -0.5)
    mlp_norm_w = normal((DM,), dtype, gen, std=0.2, mean=1.0)
    w_gate_up = normal((2 * F, DM), dtype, gen, std=DM ** -0.5)
    w_down = normal((DM, F), dtype, gen, std=F ** -0.5)
    inv_freq = 500000.0 ** (-torch.arange(0, D, 2, device=dev, dtype=torch.float64) / D)
    ang = torch.arange(S, device=dev, dtype=torch.float64)[:, None] * inv_freq[None, :]
    return (x, attn_norm_w, w_qkv, w_o, mlp_norm_w, w_gate_up, w_down, ang.cos().float(),
            ang.sin().float(), H, HKV)
