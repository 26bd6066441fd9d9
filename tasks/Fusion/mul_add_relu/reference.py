import torch


def reference(x, y, z):
    return torch.relu(x.float() * y.float() + z.float()).to(x.dtype)


def baseline(x, y, z):
    return torch.relu(torch.addcmul(z, x, y))
