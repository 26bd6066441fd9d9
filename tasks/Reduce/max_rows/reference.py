import torch


def reference(x):
    return torch.amax(x, dim=-1)
