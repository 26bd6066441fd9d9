import torch
import torch.nn.functional as F


def _norm_rope(x, w, cos, sin, eps):
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def reference(q, k, v, q_weight, k_weight, cos, sin, eps, scale):
    B, H, S = q.shape[0], q.shape[1], q.shape[2]
    group = H // k.shape[1]
    c, s_ = cos.double(), sin.double()
    qr = _norm_rope(q.double(), q_weight.double(), c, s_, eps)
    kr = _norm_rope(k.double(), k_weight.double(), c, s_, eps)
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    g = torch.arange(H, device=q.device) // group
    for b in range(B):
        s = (qr[b] @ kr[b, g].transpose(-1, -2)) * scale
        p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
        out[b] = (p @ v[b, g].double()).to(q.dtype)
    return out


def baseline(q, k, v, q_weight, k_weight, cos, sin, eps, scale):
    # Qwen3Attention: RMSNorm in float32, rounded to the input dtype, then RoPE and SDPA
    qn = F.rms_norm(q.float(), (q.shape[-1],), q_weight.float(), eps)
    kn = F.rms_norm(k.float(), (k.shape[-1],), k_weight.float(), eps)
    half = q.shape[-1] // 2

    def rope(x):
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(q.dtype)
    return F.scaled_dot_product_attention(rope(qn), rope(kn), v, is_causal=True, scale=scale,
                                          enable_gqa=True)
