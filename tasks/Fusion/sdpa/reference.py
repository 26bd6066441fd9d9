import torch
import torch.nn.functional as F


def reference(q, k, v, scale):
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    for b in range(q.shape[0]):  # one batch at a time: the float64 scores stay small
        s = (q[b].double() @ k[b].double().transpose(-1, -2)) * scale
        out[b] = (torch.softmax(s, dim=-1) @ v[b].double()).to(q.dtype)
    return out


def baseline(q, k, v, scale):
    return F.scaled_dot_product_attention(q, k, v, scale=scale)
