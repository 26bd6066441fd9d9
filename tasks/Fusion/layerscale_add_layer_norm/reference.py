import torch
import torch.nn.functional as F


def reference(x, residual, gamma, weight):
    s = (residual.float() + gamma.float() * x.float()).to(x.dtype)
    y = F.layer_norm(s.float(), (s.shape[-1],), weight.float(), None, eps=1e-6)
    return (y.to(x.dtype), s)


def baseline(x, residual, gamma, weight):
    s = torch.addcmul(residual, gamma, x)
    return (F.layer_norm(s, (s.shape[-1],), weight, None, eps=1e-6), s)
