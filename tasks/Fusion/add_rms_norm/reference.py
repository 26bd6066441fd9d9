import torch


def reference(x, residual, weight):
    s = (x.float() + residual.float()).to(x.dtype)
    sf = s.float()
    y = sf * torch.rsqrt(sf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * weight.float()
    return (y.to(x.dtype), s)
