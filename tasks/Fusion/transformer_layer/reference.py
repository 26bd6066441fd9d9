import torch
import torch.nn.functional as F


def _rms(z, w):
    zf = z.float()
    return (zf * torch.rsqrt(zf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w.float()).to(z.dtype)


def _mm(a, w):  # float64 product, rounded once to the dtype (as eager stores it)
    return (a.double() @ w.double().T).to(a.dtype)


def reference(x, attn_norm_w, w_qkv, w_o, mlp_norm_w, w_gate, w_up, w_down, n_heads):
    B, S, DM = x.shape
    D = DM // n_heads
    dt = x.dtype
    qkv = _mm(_rms(x, attn_norm_w), w_qkv)  # [B, S, 3 DM]
    q, k, v = (t.reshape(B, S, n_heads, D).transpose(1, 2).double()
               for t in qkv.split(DM, dim=-1))
    future = torch.ones(S, S, dtype=torch.bool, device=x.device).triu(1)
    s = (q @ k.transpose(-1, -2)) * D ** -0.5
    a = (torch.softmax(s.masked_fill(future, float("-inf")), dim=-1) @ v).to(dt)
    a = a.transpose(1, 2).reshape(B, S, DM)
    h = (x.double() + a.double() @ w_o.double().T).to(dt)
    hn = _rms(h, mlp_norm_w).double()
    hidden = (F.silu(hn @ w_gate.double().T) * (hn @ w_up.double().T)).to(dt)
    return (h.double() + hidden.double() @ w_down.double().T).to(dt)


def baseline(x, attn_norm_w, w_qkv, w_o, mlp_norm_w, w_gate, w_up, w_down, n_heads):
    B, S, DM = x.shape
    D = DM // n_heads
    xn = F.rms_norm(x, (DM,), attn_norm_w, eps=1e-6)
    q, k, v = (t.view(B, S, n_heads, D).transpose(1, 2)
               for t in F.linear(xn, w_qkv).split(DM, dim=-1))
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=D ** -0.5)
    h = x + F.linear(a.transpose(1, 2).reshape(B, S, DM), w_o)
    hn = F.rms_norm(h, (DM,), mlp_norm_w, eps=1e-6)
    return h + F.linear(F.silu(F.linear(hn, w_gate)) * F.linear(hn, w_up), w_down)
