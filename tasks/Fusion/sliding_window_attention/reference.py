import torch
import torch.nn.functional as F


def reference(q, k, v, window, scale):
    B, H, S, D = q.shape
    i = torch.arange(S, device=q.device)[:, None]
    j = torch.arange(S, device=q.device)[None, :]
    hidden = (j > i) | (j <= i - window)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    hc = max(1, (1 << 27) // (S * S))  # heads per chunk: float64 scores of ~1 GB at most
    for b in range(B):
        for h0 in range(0, H, hc):
            h1 = min(H, h0 + hc)
            s = (q[b, h0:h1].double() @ k[b, h0:h1].double().transpose(-1, -2)) * scale
            p = torch.softmax(s.masked_fill(hidden, float("-inf")), dim=-1)
            out[b, h0:h1] = (p @ v[b, h0:h1].double()).to(q.dtype)
    return out


def baseline(q, k, v, window, scale):
    S = q.shape[2]
    i = torch.arange(S, device=q.device)[:, None]
    j = torch.arange(S, device=q.device)[None, :]
    band = (j <= i) & (j > i - window)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=band, scale=scale)
