import torch


def reference(x, y):
    return torch.xlogy(x.float(), y.float()).to(x.dtype)


def baseline(x, y):
    return torch.xlogy(x, y)
