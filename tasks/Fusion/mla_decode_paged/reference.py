import torch
import torch.nn.functional as F


def reference(q, kv_cache, block_tables, seq_lens, kv_lora_rank, scale):
    B, H, _ = q.shape
    NB, BS, W = kv_cache.shape
    flat = kv_cache.reshape(NB * BS, W)
    out = torch.empty((B, H, kv_lora_rank), dtype=q.dtype, device=q.device)
    for b in range(B):
        t = torch.arange(int(seq_lens[b]), device=q.device)
        c = flat[block_tables[b].long()[t // BS] * BS + t % BS].double()  # [L, DL + DR]
        p = torch.softmax((q[b].double() @ c.T) * scale, dim=-1)
        out[b] = (p @ c[:, :kv_lora_rank]).to(q.dtype)
    return out


def baseline(q, kv_cache, block_tables, seq_lens, kv_lora_rank, scale):
    B, H, W = q.shape
    NB, BS, _ = kv_cache.shape
    t = torch.arange(block_tables.shape[1] * BS, device=q.device)
    c = kv_cache.view(NB * BS, W)[block_tables.long()[:, t // BS] * BS + t % BS]  # [B, T, W]
    valid = t[None, :] < seq_lens[:, None]
    return F.scaled_dot_product_attention(q, c, c[..., :kv_lora_rank],
                                          attn_mask=valid[:, None, :], scale=scale)
