import torch


def reference(x, y):
    return torch.relu(x.float() + y.float()).to(x.dtype)


def baseline(x, y):
    return torch.relu(x + y)
