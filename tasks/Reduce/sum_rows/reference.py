import torch


def reference(x):
    return x.float().sum(dim=-1).to(x.dtype)


def baseline(x):
    return x.sum(dim=-1)
