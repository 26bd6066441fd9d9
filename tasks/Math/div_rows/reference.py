import torch


def reference(x, d):
    return (x.float() / d.float()).to(x.dtype)


def baseline(x, d):
    return torch.div(x, d)
