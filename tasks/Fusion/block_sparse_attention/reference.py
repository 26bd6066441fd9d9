import torch


def _mask(layout, S, BS):
    blocks = torch.arange(S, device=layout.device) // BS
    return layout.bool()[:, blocks][:, :, blocks]  # [H, S, S]


def reference(q, k, v, layout, block_size, scale):
    B, S = q.shape[0], q.shape[2]
    visible = _mask(layout, S, block_size)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    for b in range(B):
        s = (q[b].double() @ k[b].double().transpose(-1, -2)) * scale
        p = torch.softmax(s.masked_fill(~visible, float("-inf")), dim=-1)
        p = torch.nan_to_num(p, nan=0.0)  # a row with no visible key: 0
        out[b] = (p @ v[b].double()).to(q.dtype)
    return out


def baseline(q, k, v, layout, block_size, scale):
    visible = _mask(layout, q.shape[2], block_size)
    s = ((q @ k.transpose(-1, -2)) * scale).float().masked_fill(~visible, float("-inf"))
    p = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
    return p.to(q.dtype) @ v
