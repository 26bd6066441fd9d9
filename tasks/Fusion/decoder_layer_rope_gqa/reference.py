import torch
import torch.nn.functional as F


def _rms(z, w):
    zf = z.float()
    return (zf * torch.rsqrt(zf.pow(2).mean(dim=-1, keepdim=True) + 1e-5) * w.float()).to(z.dtype)


def _rope(u, cos, sin):  # u [B, heads, S, D] float64
    h = u.shape[-1] // 2
    a, b = u[..., :h], u[..., h:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def reference(x, attn_norm_w, w_qkv, w_o, mlp_norm_w, w_gate_up, w_down, cos, sin, n_heads,
              n_kv_heads):
    B, S, DM = x.shape
    H, HKV = n_heads, n_kv_heads
    D = w_qkv.shape[0] // (H + 2 * HKV)
    dt = x.dtype
    qkv = (_rms(x, attn_norm_w).double() @ w_qkv.double().T).to(dt).double()
    q = qkv[..., : H * D].reshape(B, S, H, D).transpose(1, 2)
    k = qkv[..., H * D:(H + HKV) * D].reshape(B, S, HKV, D).transpose(1, 2)
    v = qkv[..., (H + HKV) * D:].reshape(B, S, HKV, D).transpose(1, 2)
    c, s_ = cos.double(), sin.double()
    q = _rope(q, c, s_).to(dt).double()
    k = _rope(k, c, s_).to(dt).double().repeat_interleave(H // HKV, dim=1)
    v = v.repeat_interleave(H // HKV, dim=1)
    future = torch.ones(S, S, dtype=torch.bool, device=x.device).triu(1)
    sc = (q @ k.transpose(-1, -2)) * D ** -0.5
    a = (torch.softmax(sc.masked_fill(future, float("-inf")), dim=-1) @ v).to(dt)
    a = a.transpose(1, 2).reshape(B, S, H * D).double()
    h = (x.double() + a @ w_o.double().T).to(dt)
    hn = _rms(h, mlp_norm_w).double()
    Fh = w_down.shape[1]
    gu = hn @ w_gate_up.double().T
    hidden = (F.silu(gu[..., :Fh]) * gu[..., Fh:]).to(dt).double()
    return (h.double() + hidden @ w_down.double().T).to(dt)


def baseline(x, attn_norm_w, w_qkv, w_o, mlp_norm_w, w_gate_up, w_down, cos, sin, n_heads,
             n_kv_heads):
    B, S, DM = x.shape
    H, HKV = n_heads, n_kv_heads
    D = w_qkv.shape[0] // (H + 2 * HKV)
    qkv = F.linear(F.rms_norm(x, (DM,), attn_norm_w, eps=1e-5), w_qkv)
    q, k, v = qkv.split([H * D, HKV * D, HKV * D], dim=-1)
    q = q.view(B, S, H, D).transpose(1, 2)
    k = k.view(B, S, HKV, D).transpose(1, 2)
    v = v.view(B, S, HKV, D).transpose(1, 2)

    def rope(u):
        a, b = u[..., : D // 2].float(), u[..., D // 2:].float()
        return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)

    a = F.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True, enable_gqa=True)
    h = x + F.linear(a.transpose(1, 2).reshape(B, S, H * D), w_o)
    gu = F.linear(F.rms_norm(h, (DM,), mlp_norm_w, eps=1e-5), w_gate_up)
    Fh = w_down.shape[1]
    return h + F.linear(F.silu(gu[..., :Fh]) * gu[..., Fh:], w_down)
