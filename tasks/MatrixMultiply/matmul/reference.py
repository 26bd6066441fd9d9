import torch


def reference(a, b):
    return torch.matmul(a.float(), b.float()).to(a.dtype)


def baseline(a, b):
    return torch.matmul(a, b)
