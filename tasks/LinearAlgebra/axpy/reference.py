import torch


def reference(alpha, x, y):
    # float64, rounded once to the output dtype.
    return (alpha * x.double() + y.double()).to(y.dtype)


def baseline(alpha, x, y):
    return torch.add(y, x, alpha=alpha)
