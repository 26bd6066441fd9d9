import torch


def reference(a):
    return a.double().diagonal(dim1=-2, dim2=-1).sum(-1).to(a.dtype)


def baseline(a):
    return torch.diagonal(a, dim1=-2, dim2=-1).sum(-1)
