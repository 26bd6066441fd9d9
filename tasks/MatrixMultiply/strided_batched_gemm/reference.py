import torch


def reference(a, b, alpha):
    # float64: exact products, no TF32; rounded once to the output dtype.
    return (alpha * torch.bmm(a.double(), b.double())).to(a.dtype)


def baseline(a, b, alpha):
    return torch.bmm(a, b) * alpha
