import torch


def reference(q, k, v, scale, cap):
    B, H, S, D = q.shape
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    hc = max(1, (1 << 27) // (S * S))  # heads per chunk: float64 scores of ~1 GB at most
    for b in range(B):
        for h0 in range(0, H, hc):
            h1 = min(H, h0 + hc)
            t = (q[b, h0:h1].double() @ k[b, h0:h1].double().transpose(-1, -2)) * scale
            s = cap * torch.tanh(t / cap)
            p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
            out[b, h0:h1] = (p @ v[b, h0:h1].double()).to(q.dtype)
    return out


def baseline(q, k, v, scale, cap):
    # Gemma-2 eager attention (SDPA has no soft-cap), scores in float32: float16/bfloat16
    # scores fail atol
    S = q.shape[2]
    s = torch.tanh((q.float() @ k.float().transpose(-1, -2)) * scale / cap) * cap
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
    return p.to(q.dtype) @ v
