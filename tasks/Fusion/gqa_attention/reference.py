import torch


def reference(q, k, v, scale):
    H, S = q.shape[1], q.shape[2]
    group = H // k.shape[1]
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    for b in range(q.shape[0]):  # one batch at a time: the float64 scores stay small
        kb = k[b].double().repeat_interleave(group, dim=0)
        vb = v[b].double().repeat_interleave(group, dim=0)
        s = (q[b].double() @ kb.transpose(-1, -2)) * scale
        p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
        out[b] = (p @ vb).to(q.dtype)
    return out
