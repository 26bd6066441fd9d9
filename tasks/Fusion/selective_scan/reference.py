import torch
import torch.nn.functional as F


def _scan(u, delta, A, Bm, Cm, D, z, delta_bias, dtype):
    # mamba_ssm's selective_scan_ref (delta_softplus=True) in `dtype`
    u, delta, z = u.to(dtype), delta.to(dtype), z.to(dtype)
    A, Bm, Cm, D = A.to(dtype), Bm.to(dtype), Cm.to(dtype), D.to(dtype)
    delta = F.softplus(delta + delta_bias.to(dtype)[:, None])
    dA = torch.exp(delta[:, :, :, None] * A[None, :, None, :])  # [B, DI, L, N]
    dBu = delta[:, :, :, None] * Bm.transpose(1, 2)[:, None] * u[:, :, :, None]
    x = torch.zeros((u.shape[0], u.shape[1], A.shape[1]), dtype=dtype, device=u.device)
    ys = []
    for t in range(u.shape[2]):
        x = dA[:, :, t] * x + dBu[:, :, t]
        ys.append((x * Cm[:, None, :, t]).sum(-1))
    y = torch.stack(ys, dim=2) + u * D[:, None]
    return y * F.silu(z)


def reference(u, delta, A, Bm, Cm, D, z, delta_bias):
    return _scan(u, delta, A, Bm, Cm, D, z, delta_bias, torch.float64).to(u.dtype)


def baseline(u, delta, A, Bm, Cm, D, z, delta_bias):
    return _scan(u, delta, A, Bm, Cm, D, z, delta_bias, torch.float32).to(u.dtype)
