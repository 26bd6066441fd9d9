import torch


def reference(x, y):
    return torch.xlogy(x.float(), y.float()).to(x.dtype)
