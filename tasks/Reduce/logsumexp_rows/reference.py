import torch


def reference(x):
    return torch.logsumexp(x.double(), dim=-1).to(x.dtype)


def baseline(x):
    return torch.logsumexp(x, dim=-1)
