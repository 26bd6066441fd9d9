import torch
import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, bias):
    out = F.layer_norm(x.double(), (x.shape[-1],), weight.double(), bias.double(), EPS)
    return out.to(x.dtype)


def baseline(x, weight, bias):
    return F.layer_norm(x, (x.shape[-1],), weight, bias, EPS)
