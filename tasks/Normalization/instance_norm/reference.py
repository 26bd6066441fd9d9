import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, bias):
    out = F.instance_norm(x.double(), weight=weight.double(), bias=bias.double(), eps=EPS)
    return out.to(x.dtype)
