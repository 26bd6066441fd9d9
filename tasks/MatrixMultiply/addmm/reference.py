import torch


def reference(bias, a, b):
    # float64: exact products, no TF32; rounded once to the output dtype.
    return torch.addmm(bias.double(), a.double(), b.double()).to(a.dtype)


def baseline(bias, a, b):
    return torch.addmm(bias, a, b)
