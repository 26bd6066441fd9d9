import torch
import torch.nn.functional as F


def reference(q, k, v, w_o, residual, scale):
    B, H, S, D = q.shape
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(residual.shape, dtype=q.dtype, device=q.device)
    for b in range(B):  # one batch at a time: the float64 scores stay small
        s = (q[b].double() @ k[b].double().transpose(-1, -2)) * scale
        a = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1) @ v[b].double()
        a = a.to(q.dtype).transpose(0, 1).reshape(S, H * D)  # eager: stored in the dtype
        out[b] = (residual[b].double() + a.double() @ w_o.double().T).to(q.dtype)
    return out


def baseline(q, k, v, w_o, residual, scale):
    B, H, S, D = q.shape
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)
    a = a.transpose(1, 2).reshape(B * S, H * D)
    return torch.addmm(residual.reshape(B * S, -1), a, w_o.T).view(residual.shape)
