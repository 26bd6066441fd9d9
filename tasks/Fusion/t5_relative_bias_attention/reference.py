import torch


def _bias(rel_bias, bucket, S):
    i = torch.arange(S, device=bucket.device)[:, None]
    j = torch.arange(S, device=bucket.device)[None, :]
    idx = bucket.long()[j - i + S - 1]  # [S, S]
    return rel_bias[idx].permute(2, 0, 1)  # [H, S, S]


def reference(q, k, v, rel_bias, bucket, scale):
    B, S = q.shape[0], q.shape[2]
    bias = _bias(rel_bias.double(), bucket, S)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    for b in range(B):
        s = (q[b].double() @ k[b].double().transpose(-1, -2)) * scale + bias
        out[b] = (torch.softmax(s, dim=-1) @ v[b].double()).to(q.dtype)
    return out


def baseline(q, k, v, rel_bias, bucket, scale):
    bias = _bias(rel_bias, bucket, q.shape[2])
    s = (q @ k.transpose(-1, -2)) * scale + bias
    return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v
