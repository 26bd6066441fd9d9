import torch


def reference(x):
    return torch.prod(x.double(), dim=-1).to(x.dtype)
