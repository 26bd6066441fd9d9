import torch
import torch.nn.functional as F


def reference(x, weight, bias):
    D, KW = weight.shape
    L = x.shape[-1]
    z = F.conv1d(x.double(), weight.double().unsqueeze(1), bias.double(), padding=KW - 1,
                 groups=D)[..., :L]
    return F.silu(z).to(x.dtype)


def baseline(x, weight, bias):
    D, KW = weight.shape
    L = x.shape[-1]
    return F.silu(F.conv1d(x, weight.unsqueeze(1), bias, padding=KW - 1, groups=D)[..., :L])
