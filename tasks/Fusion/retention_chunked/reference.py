import torch

SCORE_ELEMENTS = 1 << 26  # float64 decay and scores of one chunk of query rows: 512 MiB each


def reference(q, k, v, log2_gamma, scale):
    B, H, S, DK = q.shape
    n = torch.arange(S, device=q.device, dtype=torch.float64)
    g = log2_gamma.double()
    tail = torch.exp2(g[:, None] * (S - 1 - n))  # [H, S]
    rows = max(1, min(S, SCORE_ELEMENTS // (H * S)))  # never an [H, S, S] matrix at a GPU shape
    o = torch.empty(v.shape, dtype=q.dtype, device=q.device)
    final = torch.empty((B, H, DK, v.shape[3]), dtype=torch.float32, device=q.device)
    for i0 in range(0, S, rows):
        i1 = min(S, i0 + rows)  # query rows i0..i1 see keys 0..i1 - 1 only (causal)
        diff = n[i0:i1, None] - n[None, :i1]
        d = torch.exp2(g[:, None, None] * diff)  # [H, rows, i1]
        d = torch.where(diff >= 0, d, torch.zeros((), dtype=d.dtype, device=d.device))
        for b in range(B):
            qd, kd, vd = q[b, :, i0:i1].double(), k[b, :, :i1].double(), v[b, :, :i1].double()
            a = (qd @ kd.transpose(-1, -2)) * scale * d
            o[b, :, i0:i1] = (a @ vd).to(q.dtype)
    for b in range(B):
        kd, vd = k[b].double(), v[b].double()
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
