import torch


def _rotate(x, cos, sin):
    h = x.shape[-1] // 2
    xf = x.float()
    x1, x2 = xf[..., :h], xf[..., h:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)


def reference(q, k, v, cos, sin, scale):
    S = q.shape[2]
    qr, kr = _rotate(q, cos, sin), _rotate(k, cos, sin)  # eager: stored in the dtype
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    for b in range(q.shape[0]):  # one batch at a time: the float64 scores stay small
        s = (qr[b].double() @ kr[b].double().transpose(-1, -2)) * scale
        p = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
        out[b] = (p @ v[b].double()).to(q.dtype)
    return out
