import torch


def reference(x):
    return torch.std(x.double(), dim=-1, correction=0).to(x.dtype)


def baseline(x):
    return torch.std(x, dim=-1, correction=0)
