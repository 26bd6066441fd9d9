import torch


def reference(x):
    return torch.argmax(x, dim=-1)
