import torch


def reference(qkv, H, HKV, scale):
    B, S, W = qkv.shape
    D = W // (H + 2 * HKV)
    x = qkv.view(B, S, H + 2 * HKV, D).permute(0, 2, 1, 3)
    q = (x[:, :H].float() * torch.tensor(scale, dtype=torch.float32)).to(qkv.dtype)
    k = x[:, H:H + HKV].contiguous()
    v = x[:, H + HKV:].contiguous()
    return (q.contiguous(), k, v)


def baseline(qkv, H, HKV, scale):
    B, S, W = qkv.shape
    D = W // (H + 2 * HKV)
    q, k, v = qkv.view(B, S, H + 2 * HKV, D).transpose(1, 2).split([H, HKV, HKV], dim=1)
    return ((q * scale).contiguous(), k.contiguous(), v.contiguous())
