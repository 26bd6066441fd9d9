import torch

SCORE_ELEMENTS = 1 << 26  # float64 scores of one chunk of query rows: 512 MiB


def reference(q, k, v, scale):
    B, H, S = q.shape[0], q.shape[1], q.shape[2]
    rows = max(1, min(S, SCORE_ELEMENTS // (H * S)))  # never an [H, S, S] matrix at a GPU shape
    o = torch.empty(v.shape, dtype=q.dtype, device=q.device)
    final = torch.empty((B, H, q.shape[3], v.shape[3]), dtype=torch.float32, device=q.device)
    for i0 in range(0, S, rows):
        i1 = min(S, i0 + rows)  # query rows i0..i1 see keys 0..i1 - 1 only (causal)
        causal = torch.ones(i1 - i0, i1, dtype=torch.bool, device=q.device).tril(i0)
        for b in range(B):
            qd, kd, vd = q[b, :, i0:i1].double(), k[b, :, :i1].double(), v[b, :, :i1].double()
            a = (qd @ kd.transpose(-1, -2)) * scale
            o[b, :, i0:i1] = ((a * causal) @ vd).to(q.dtype)
    for b in range(B):
        final[b] = (k[b].double().transpose(-1, -2) @ v[b].double()).float()
    return o, final


def baseline(q, k, v, scale):
    # fla's naive form in float32: the masked [S, S] products
    S = q.shape[2]
    causal = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
    qf, kf, vf = q.float(), k.float(), v.float()
    a = (qf @ kf.transpose(-1, -2)) * scale
    return ((a * causal) @ vf).to(q.dtype), kf.transpose(-1, -2) @ vf
