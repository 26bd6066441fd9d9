import torch


def reference(x):
    return torch.softmax(x.float(), dim=0).to(x.dtype)


def baseline(x):
    return torch.softmax(x, dim=0)
