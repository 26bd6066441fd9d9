import torch
import torch.nn.functional as F


def _rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)


def reference(q, k, q_weight, k_weight):
    return (_rms(q, q_weight), _rms(k, k_weight))


def baseline(q, k, q_weight, k_weight):
    D = q.shape[-1]
    return (F.rms_norm(q, (D,), q_weight, eps=1e-6), F.rms_norm(k, (D,), k_weight, eps=1e-6))
