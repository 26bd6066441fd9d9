import torch


def reference(q, k, v, scale):
    S = q.shape[2]
    causal = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
    o = torch.empty(v.shape, dtype=q.dtype, device=q.device)
    final = torch.empty((q.shape[0], q.shape[1], q.shape[3], v.shape[3]), dtype=torch.float32,
                        device=q.device)
    for b in range(q.shape[0]):
        qd, kd, vd = q[b].double(), k[b].double(), v[b].double()
        a = (qd @ kd.transpose(-1, -2)) * scale
        o[b] = ((a * causal) @ vd).to(q.dtype)
        final[b] = (kd.transpose(-1, -2) @ vd).float()
    return o, final


def baseline(q, k, v, scale):
    # fla's naive form in float32: the masked [S, S] products
    S = q.shape[2]
    causal = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
    qf, kf, vf = q.float(), k.float(), v.float()
    a = (qf @ kf.transpose(-1, -2)) * scale
    return ((a * causal) @ vf).to(q.dtype), kf.transpose(-1, -2) @ vf
