import torch
import torch.nn.functional as F


def reference(q, k_cache, v_cache, block_tables, context_lens, scale):
    B, H, D = q.shape
    NB, BS, HKV, _ = k_cache.shape
    group = H // HKV
    k_flat = k_cache.reshape(NB * BS, HKV, D)
    v_flat = v_cache.reshape(NB * BS, HKV, D)
    out = torch.empty((B, H, D), dtype=q.dtype, device=q.device)
    for b in range(B):
        n = int(context_lens[b])
        t = torch.arange(n, device=q.device)
        slots = block_tables[b].long()[t // BS] * BS + t % BS
        k = k_flat[slots].double().repeat_interleave(group, dim=1)  # [n, H, D]
        v = v_flat[slots].double().repeat_interleave(group, dim=1)
        s = torch.einsum("hd,thd->ht", q[b].double(), k) * scale
        out[b] = torch.einsum("ht,thd->hd", torch.softmax(s, dim=-1), v).to(q.dtype)
    return out


def baseline(q, k_cache, v_cache, block_tables, context_lens, scale):
    B, H, D = q.shape
    NB, BS, HKV, _ = k_cache.shape
    t = torch.arange(block_tables.shape[1] * BS, device=q.device)
    slots = block_tables.long()[:, t // BS] * BS + t % BS  # [B, MAXB * BS]
    k = k_cache.view(NB * BS, HKV, D)[slots].transpose(1, 2)  # [B, HKV, L, D]
    v = v_cache.view(NB * BS, HKV, D)[slots].transpose(1, 2)
    valid = t[None, :] < context_lens[:, None]
    # the query heads of one kv head as the query rows of one attention: no k/v copy per head
    out = F.scaled_dot_product_attention(q.view(B, HKV, H // HKV, D), k, v,
                                         attn_mask=valid[:, None, None, :], scale=scale)
    return out.reshape(B, H, D)
