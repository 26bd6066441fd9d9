import torch
import torch.nn.functional as F


def reference(q, k, v, weight, lam, lambda_init, eps, scale):
    B, H2, S = q.shape[0], q.shape[1], q.shape[2]
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(v.shape, dtype=q.dtype, device=q.device)
    w = weight.double()
    for b in range(B):
        s = (q[b].double() @ k[b].double().transpose(-1, -2)) * scale
        p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1).view(H2 // 2, 2, S, S)
        a = (p[:, 0] - lam * p[:, 1]) @ v[b].double()
        a = a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + eps) * w
        out[b] = (a * (1 - lambda_init)).to(q.dtype)
    return out


def baseline(q, k, v, weight, lam, lambda_init, eps, scale):
    # the Diff Transformer module's order with SDPA: each softmax map times v, then the norm
    B, H2, S, D = q.shape
    vv = v.repeat_interleave(2, dim=1)  # both maps of head h read v[h]
    o = F.scaled_dot_product_attention(q, k, vv, is_causal=True, scale=scale).float()
    o = o.view(B, H2 // 2, 2, S, 2 * D)
    a = o[:, :, 0] - lam * o[:, :, 1]
    a = F.rms_norm(a, (2 * D,), weight.float(), eps)
    return (a * (1 - lambda_init)).to(q.dtype)
