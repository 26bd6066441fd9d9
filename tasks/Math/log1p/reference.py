import torch


def reference(x):
    return torch.log1p(x.float()).to(x.dtype)


def baseline(x):
    return torch.log1p(x)
