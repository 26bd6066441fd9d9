import torch


def reference(a):
    return a.double().diagonal(dim1=-2, dim2=-1).sum(-1).to(a.dtype)
