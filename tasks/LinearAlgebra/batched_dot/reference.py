import torch


def reference(x, y):
    return (x.double() * y.double()).sum(dim=-1).to(x.dtype)


def baseline(x, y):
    return torch.einsum("bn,bn->b", x, y)
