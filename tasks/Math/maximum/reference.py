import torch


def reference(x, y):
    return torch.maximum(x, y)
