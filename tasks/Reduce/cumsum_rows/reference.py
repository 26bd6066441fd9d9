import torch


def reference(x):
    return torch.cumsum(x.double(), dim=-1).to(x.dtype)


def baseline(x):
    return torch.cumsum(x, dim=-1)
