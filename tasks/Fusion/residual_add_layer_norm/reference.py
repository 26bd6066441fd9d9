import torch
import torch.nn.functional as F


def reference(x, residual, weight, bias):
    s = (x.float() + residual.float()).to(x.dtype)
    y = F.layer_norm(s.float(), (s.shape[-1],), weight.float(), bias.float(), eps=1e-5)
    return (y.to(x.dtype), s)


def baseline(x, residual, weight, bias):
    s = x + residual
    return (F.layer_norm(s, (s.shape[-1],), weight, bias, eps=1e-5), s)
