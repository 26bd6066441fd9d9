import torch


def reference(x):
    return torch.exp(x.float()).to(x.dtype)


def baseline(x):
    return torch.exp(x)
