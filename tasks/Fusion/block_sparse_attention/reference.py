import torch

SCORE_ELEMENTS = 1 << 26  # float64 scores of one chunk of query rows: 512 MiB


def _mask(layout, S, BS):
    blocks = torch.arange(S, device=layout.device) // BS
    return layout.bool()[:, blocks][:, :, blocks]  # [H, S, S]


def reference(q, k, v, layout, block_size, scale):
    B, H, S = q.shape[0], q.shape[1], q.shape[2]
    blocks = torch.arange(S, device=layout.device) // block_size
    rows = max(1, min(S, SCORE_ELEMENTS // (H * S)))  # never the [H, S, S] scores of a GPU shape
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    for i0 in range(0, S, rows):
        i1 = min(S, i0 + rows)
        visible = layout.bool()[:, blocks[i0:i1]][:, :, blocks]  # [H, rows, S]
        for b in range(B):
            s = (q[b, :, i0:i1].double() @ k[b].double().transpose(-1, -2)) * scale
            p = torch.softmax(s.masked_fill(~visible, float("-inf")), dim=-1)
            p = torch.nan_to_num(p, nan=0.0)  # a row with no visible key: 0
            out[b, :, i0:i1] = (p @ v[b].double()).to(q.dtype)
    return out


def baseline(q, k, v, layout, block_size, scale):
    visible = _mask(layout, q.shape[2], block_size)
    s = ((q @ k.transpose(-1, -2)) * scale).float().masked_fill(~visible, float("-inf"))
    p = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
    return p.to(q.dtype) @ v
