import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, bias, num_groups):
    xd = x.double().permute(0, 3, 1, 2)
    y = F.group_norm(xd, num_groups, weight.double(), bias.double(), EPS)
    return F.silu(y).permute(0, 2, 3, 1).contiguous().to(x.dtype)


def baseline(x, weight, bias, num_groups):
    # what a PyTorch user runs on a channels-last tensor
    y = F.group_norm(x.permute(0, 3, 1, 2), num_groups, weight, bias, EPS)
    return F.silu(y).permute(0, 2, 3, 1).contiguous()
