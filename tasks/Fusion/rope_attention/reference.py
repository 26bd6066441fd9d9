import torch
import torch.nn.functional as F


def _rotate(x, cos, sin):
    h = x.shape[-1] // 2
    xf = x.float()
    x1, x2 = xf[..., :h], xf[..., h:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)


def reference(q, k, v, cos, sin, scale):
    B, H, S, D = q.shape
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    hc = max(1, (1 << 27) // (S * S))  # heads per chunk: float64 scores of ~1 GB at most
    for b in range(B):
        for h0 in range(0, H, hc):
            h1 = min(H, h0 + hc)
            qr = _rotate(q[b, h0:h1], cos, sin)  # eager: the rotated values stored in the dtype
            kr = _rotate(k[b, h0:h1], cos, sin)
            s = (qr.double() @ kr.double().transpose(-1, -2)) * scale
            p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
            out[b, h0:h1] = (p @ v[b, h0:h1].double()).to(q.dtype)
    return out


def baseline(q, k, v, cos, sin, scale):
    cos = torch.cat([cos, cos], dim=-1)
    sin = torch.cat([sin, sin], dim=-1)

    def rotate_half(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat([-x2, x1], dim=-1)

    # rotation in float32, rounded once: bfloat16 rotation fails atol on outlier inputs
    qr = (q.float() * cos + rotate_half(q.float()) * sin).to(q.dtype)
    kr = (k.float() * cos + rotate_half(k.float()) * sin).to(k.dtype)
    return F.scaled_dot_product_attention(qr, kr, v, is_causal=True, scale=scale)
