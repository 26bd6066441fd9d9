import torch


def reference(x):
    xf = x.float()
    return torch.sin(xf).to(x.dtype), torch.cos(xf).to(x.dtype)


def baseline(x):
    return torch.sin(x), torch.cos(x)
