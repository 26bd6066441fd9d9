import torch


def reference(x):
    return torch.round(x.float()).to(x.dtype)


def baseline(x):
    return torch.round(x)
