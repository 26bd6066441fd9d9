import torch


def reference(idx, C):
    return torch.bincount(idx, minlength=C)
