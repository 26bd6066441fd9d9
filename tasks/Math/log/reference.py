import torch


def reference(x):
    return torch.log(x.float()).to(x.dtype)


def baseline(x):
    return torch.log(x)
