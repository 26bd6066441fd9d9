import torch
import torch.nn.functional as F


def _scan(x, dt, A, Bm, Cm, D, dt_bias, dtype):
    # mamba_ssm ssd / selective_state_update stepped over the sequence, in `dtype`
    B, L, H, P = x.shape
    G, N = Bm.shape[2], Bm.shape[3]
    rep = H // G
    x, Bm, Cm = x.to(dtype), Bm.to(dtype), Cm.to(dtype)
    Bh = Bm.repeat_interleave(rep, dim=2)  # [B, L, H, N]
    Ch = Cm.repeat_interleave(rep, dim=2)
    dt = F.softplus(dt.to(dtype) + dt_bias.to(dtype))  # [B, L, H]
    dA = torch.exp(dt * A.to(dtype))
    state = torch.zeros((B, H, P, N), dtype=dtype, device=x.device)
    ys = []
    for t in range(L):
        state = (dA[:, t, :, None, None] * state
                 + (dt[:, t, :, None] * x[:, t])[..., None] * Bh[:, t, :, None, :])
        ys.append((state * Ch[:, t, :, None, :]).sum(-1))
    y = torch.stack(ys, dim=1) + x * D.to(dtype)[:, None]
    return y


def reference(x, dt, A, Bm, Cm, D, dt_bias):
    return _scan(x, dt, A, Bm, Cm, D, dt_bias, torch.float64).to(x.dtype)


def baseline(x, dt, A, Bm, Cm, D, dt_bias):
    return _scan(x, dt, A, Bm, Cm, D, dt_bias, torch.float32).to(x.dtype)
