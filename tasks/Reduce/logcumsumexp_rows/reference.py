import torch


def reference(x):
    return torch.logcumsumexp(x.double(), dim=-1).to(x.dtype)


def baseline(x):
    return torch.logcumsumexp(x, dim=-1)
