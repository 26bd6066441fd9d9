import torch
import torch.nn.functional as F


def _token_major(k_cache, v_cache):
    NB, HKV, DX, BS, X = k_cache.shape
    k = k_cache.permute(0, 3, 1, 2, 4).reshape(NB * BS, HKV, DX * X)
    v = v_cache.permute(0, 3, 1, 2).reshape(NB * BS, HKV, DX * X)
    return k, v


def reference(q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes, scale):
    B, H, D = q.shape
    HKV, BS = k_cache.shape[1], k_cache.shape[3]
    group = H // HKV
    k_flat, v_flat = _token_major(k_cache, v_cache)
    out = torch.empty((B, H, D), dtype=q.dtype, device=q.device)
    for b in range(B):
        n = int(seq_lens[b])
        t = torch.arange(n, device=q.device)
        slots = block_tables[b].long()[t // BS] * BS + t % BS
        k = k_flat[slots].double().repeat_interleave(group, dim=1)  # [n, H, D]
        v = v_flat[slots].double().repeat_interleave(group, dim=1)
        s = torch.einsum("hd,thd->ht", q[b].double(), k) * scale
        s = s + alibi_slopes.double()[:, None] * (t - n + 1).double()[None, :]
        out[b] = torch.einsum("ht,thd->hd", torch.softmax(s, dim=-1), v).to(q.dtype)
    return out


def baseline(q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes, scale):
    B, H, D = q.shape
    HKV, BS = k_cache.shape[1], k_cache.shape[3]
    k_flat, v_flat = _token_major(k_cache, v_cache)
    t = torch.arange(block_tables.shape[1] * BS, device=q.device)
    slots = block_tables.long()[:, t // BS] * BS + t % BS
    k = k_flat[slots].transpose(1, 2)  # [B, HKV, T, D]
    v = v_flat[slots].transpose(1, 2)
    rel = (t[None, :] - seq_lens[:, None] + 1).float()  # [B, T]
    bias = alibi_slopes[None, :, None] * rel[:, None, :]  # [B, H, T]
    bias = bias.masked_fill((t[None, :] >= seq_lens[:, None])[:, None, :], float("-inf"))
    out = F.scaled_dot_product_attention(q.unsqueeze(2), k, v, attn_mask=bias.unsqueeze(2).to(q.dtype),
                                         scale=scale, enable_gqa=True)
    return out.squeeze(2)
