import torch
import torch.nn.functional as F


def reference(q, k_new, v_new, k_cache, v_cache, cache_seqlens, scale, out):
    """flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens) for one decode
    token, into `out`; writes k_cache, v_cache and out IN PLACE (kgb calls it on clones)."""
    B, H = q.shape[0], q.shape[1]
    HKV = k_cache.shape[1]
    b_idx = torch.arange(B, device=q.device)
    pos = cache_seqlens.long()
    k_cache[b_idx, :, pos] = k_new
    v_cache[b_idx, :, pos] = v_new
    g = torch.arange(H, device=q.device) // (H // HKV)
    for b in range(B):
        n = int(pos[b]) + 1
        k = k_cache[b, g, :n].double()  # [H, n, D]
        v = v_cache[b, g, :n].double()
        s = (k @ q[b].double()[:, :, None])[..., 0] * scale  # [H, n]
        out[b] = (torch.softmax(s, dim=-1)[:, None, :] @ v)[:, 0].to(out.dtype)


def baseline(q, k_new, v_new, k_cache, v_cache, cache_seqlens, scale, out):
    B, SMAX = q.shape[0], k_cache.shape[2]
    b_idx = torch.arange(B, device=q.device)
    pos = cache_seqlens.long()
    k_cache[b_idx, :, pos] = k_new
    v_cache[b_idx, :, pos] = v_new
    visible = torch.arange(SMAX, device=q.device)[None, :] <= pos[:, None]  # [B, SMAX]
    o = F.scaled_dot_product_attention(q[:, :, None], k_cache, v_cache,
                                       attn_mask=visible[:, None, None, :], scale=scale,
                                       enable_gqa=True)
    out.copy_(o[:, :, 0])
