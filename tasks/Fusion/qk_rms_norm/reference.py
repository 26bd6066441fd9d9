import torch


def _rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)


def reference(q, k, q_weight, k_weight):
    return (_rms(q, q_weight), _rms(k, k_weight))
