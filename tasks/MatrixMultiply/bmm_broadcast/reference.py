import torch


def reference(a, b):
    # float64: exact products, no TF32; rounded once to the output dtype.
    return torch.matmul(a.double(), b.double()).to(a.dtype)


def baseline(a, b):
    return torch.matmul(a, b)
