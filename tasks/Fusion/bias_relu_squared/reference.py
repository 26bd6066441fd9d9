import torch


def reference(x, b):
    return torch.relu(x.float() + b.float()).square().to(x.dtype)
