import torch
import torch.nn.functional as F


def reference(q, k, v, scale):
    B, H, S, D = q.shape
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    lse = torch.empty((B, H, S), dtype=torch.float32, device=q.device)
    for b in range(B):  # one batch at a time: the float64 scores stay small
        s = (q[b].double() @ k[b].double().transpose(-1, -2)) * scale
        s = s.masked_fill(future, float("-inf"))
        lse[b] = torch.logsumexp(s, dim=-1).float()
        out[b] = (torch.softmax(s, dim=-1) @ v[b].double()).to(q.dtype)
    return (out, lse)


def baseline(q, k, v, scale):
    S = q.shape[2]
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)
    s = (q @ k.transpose(-1, -2)).float() * scale
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    lse = torch.logsumexp(s.masked_fill(future, float("-inf")), dim=-1)
    return (out, lse)
