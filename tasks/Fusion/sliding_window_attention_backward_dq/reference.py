import torch
import torch.nn.functional as F

SCORE_ELEMENTS = 1 << 26  # float64 scores of one chunk: 512 MiB (autograd holds a few of them)


def _band(S, window, device):
    i = torch.arange(S, device=device)[:, None]
    j = torch.arange(S, device=device)[None, :]
    return (j <= i) & (j > i - window)


def _rows_per_chunk(H, S, window):
    """Query rows per chunk: rows i0..i1 see keys max(0, i0 - window + 1)..i1 - 1 only, so a
    chunk's scores are H x rows x (rows + window - 1), never H x S x S (a GPU shape's full
    float64 graph needed 66 GiB)."""
    span = min(S, window)
    rows = S
    while rows > 1 and H * rows * min(S, rows + span - 1) > SCORE_ELEMENTS:
        rows = (rows + 1) // 2
    return rows


def reference(q, k, v, grad_out, window, scale):
    B, H, S = q.shape[:3]
    rows = _rows_per_chunk(H, S, window)
    dq = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    for b in range(B):
        for i0 in range(0, S, rows):
            # a query row's softmax and gradient depend on its own band only: chunks of rows
            # give the same float64 maths as the whole matrix
            i1 = min(S, i0 + rows)
            j0 = max(0, i0 - window + 1)
            i = torch.arange(i0, i1, device=q.device)[:, None]
            j = torch.arange(j0, i1, device=q.device)[None, :]
            hidden = (j > i) | (j <= i - window)
            with torch.enable_grad():
                qb = q[b, :, i0:i1].double().requires_grad_(True)
                s = (qb @ k[b, :, j0:i1].double().transpose(-1, -2)) * scale
                p = torch.softmax(s.masked_fill(hidden, float("-inf")), dim=-1)
                o = p @ v[b, :, j0:i1].double()
                (g,) = torch.autograd.grad(o, qb, grad_out[b, :, i0:i1].double())
            dq[b, :, i0:i1] = g.to(q.dtype)
    return dq


def baseline(q, k, v, grad_out, window, scale):
    mask = _band(q.shape[2], window, q.device)
    with torch.enable_grad():
        q_ = q.detach().requires_grad_(True)
        o = F.scaled_dot_product_attention(q_, k, v, attn_mask=mask, scale=scale)
        (g,) = torch.autograd.grad(o, q_, grad_out)
    return g
