import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, bias, num_groups):
    out = F.group_norm(x.double(), num_groups, weight.double(), bias.double(), EPS)
    return out.to(x.dtype)


def baseline(x, weight, bias, num_groups):
    return F.group_norm(x, num_groups, weight, bias, EPS)
