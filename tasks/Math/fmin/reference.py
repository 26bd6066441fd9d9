import torch


def reference(x, y):
    return torch.fmin(x, y)
