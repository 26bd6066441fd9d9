import torch
import torch.nn.functional as F


def reference(q, k, v, cu_seqlens, max_seqlen, scale):
    T, H, D = q.shape
    group = H // k.shape[1]
    out = torch.empty((T, H, D), dtype=q.dtype, device=q.device)
    bounds = cu_seqlens.tolist()
    for s0, s1 in zip(bounds[:-1], bounds[1:]):
        n = s1 - s0
        qb = q[s0:s1].double().transpose(0, 1)  # [H, n, D]
        kb = k[s0:s1].double().transpose(0, 1).repeat_interleave(group, dim=0)
        vb = v[s0:s1].double().transpose(0, 1).repeat_interleave(group, dim=0)
        s = (qb @ kb.transpose(-1, -2)) * scale
        future = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
        out[s0:s1] = (p @ vb).transpose(0, 1).to(q.dtype)
    return out


def baseline(q, k, v, cu_seqlens, max_seqlen, scale):
    out = torch.empty_like(q)
    bounds = cu_seqlens.tolist()
    for s0, s1 in zip(bounds[:-1], bounds[1:]):  # one SDPA call per sequence of the pack
        o = F.scaled_dot_product_attention(
            q[s0:s1].transpose(0, 1), k[s0:s1].transpose(0, 1), v[s0:s1].transpose(0, 1),
            is_causal=True, scale=scale, enable_gqa=True)
        out[s0:s1] = o.transpose(0, 1)
    return out
