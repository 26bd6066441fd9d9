import torch
import torch.nn.functional as F


def reference(q, k, v, scale):
    B, H, S, D = q.shape
    group = H // k.shape[1]
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    hc = max(1, (1 << 27) // (S * S))  # heads per chunk: float64 scores of ~1 GB at most
    for b in range(B):
        for h0 in range(0, H, hc):
            h1 = min(H, h0 + hc)
            g = torch.arange(h0, h1, device=q.device) // group  # kv head of each query head
            s = (q[b, h0:h1].double() @ k[b, g].double().transpose(-1, -2)) * scale
            p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
            out[b, h0:h1] = (p @ v[b, g].double()).to(q.dtype)
    return out


def baseline(q, k, v, scale):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True)
