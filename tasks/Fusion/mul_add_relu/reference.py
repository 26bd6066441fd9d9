import torch


def reference(x, y, z):
    return torch.relu(x.float() * y.float() + z.float()).to(x.dtype)
