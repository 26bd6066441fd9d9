import torch


def _decay(log2_gamma, S):
    n = torch.arange(S, device=log2_gamma.device, dtype=torch.float64)
    diff = n[:, None] - n[None, :]
    d = torch.exp2(log2_gamma.double()[:, None, None] * diff)  # [H, S, S]
    return torch.where(diff >= 0, d, torch.zeros((), dtype=d.dtype, device=d.device)), n


def reference(q, k, v, log2_gamma, scale):
    B, H, S, DK = q.shape
    d, n = _decay(log2_gamma, S)
    tail = torch.exp2(log2_gamma.double()[:, None] * (S - 1 - n))  # [H, S]
    o = torch.empty(v.shape, dtype=q.dtype, device=q.device)
    final = torch.empty((B, H, DK, v.shape[3]), dtype=torch.float32, device=q.device)
    for b in range(B):
        qd, kd, vd = q[b].double(), k[b].double(), v[b].double()
        a = (qd @ kd.transpose(-1, -2)) * scale * d
        o[b] = (a @ vd).to(q.dtype)
        final[b] = ((kd * tail[..., None]).transpose(-1, -2) @ vd).float()
    return o, final


def baseline(q, k, v, log2_gamma, scale):
    # fla's naive_retention in float32: the decay-masked [S, S] products
    S = q.shape[2]
    n = torch.arange(S, device=q.device, dtype=torch.float32)
    diff = n[:, None] - n[None, :]
    d = torch.exp2(log2_gamma[:, None, None] * diff).masked_fill(diff < 0, 0)
    tail = torch.exp2(log2_gamma[:, None] * (S - 1 - n))
    qf, kf, vf = q.float(), k.float(), v.float()
    o = ((qf @ kf.transpose(-1, -2)) * scale * d) @ vf
    return o.to(q.dtype), (kf * tail[..., None]).transpose(-1, -2) @ vf
