import torch


def _recurrence(q, k, v, g, beta, scale, dtype):
    # fla's naive_recurrent_gated_delta_rule with use_qk_l2norm_in_kernel=True, in `dtype`
    B, T, H, K = q.shape
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    q = q / torch.sqrt((q * q).sum(-1, keepdim=True) + 1e-6)
    k = k / torch.sqrt((k * k).sum(-1, keepdim=True) + 1e-6)
    g, beta = g.to(dtype), beta.to(dtype)
    S = torch.zeros((B, H, K, v.shape[3]), dtype=dtype, device=q.device)
    out = []
    for t in range(T):
        S = S * torch.exp(g[:, t])[:, :, None, None]
        kt = k[:, t]  # [B, H, K]
        u = (v[:, t] - (S * kt[..., None]).sum(2)) * beta[:, t, :, None]  # [B, H, V]
        S = S + kt[..., None] * u[:, :, None, :]
        out.append(((q[:, t] * scale)[..., None] * S).sum(2))
    return torch.stack(out, dim=1), S


def reference(q, k, v, g, beta, scale):
    o, S = _recurrence(q, k, v, g, beta, scale, torch.float64)
    return o.to(q.dtype), S.float()


def baseline(q, k, v, g, beta, scale):
    o, S = _recurrence(q, k, v, g, beta, scale, torch.float32)
    return o.to(q.dtype), S
