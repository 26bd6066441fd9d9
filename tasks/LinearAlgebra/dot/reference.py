import torch


def reference(x, y):
    # float64, rounded once; a 0-d tensor.
    return (x.double() * y.double()).sum().to(x.dtype)


def baseline(x, y):
    return torch.dot(x.flatten(), y.flatten())
