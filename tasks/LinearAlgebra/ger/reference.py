import torch


def reference(a, x, y, alpha):
    # float64, rounded once to the output dtype.
    return torch.addr(a.double(), x.double(), y.double(), alpha=alpha).to(a.dtype)


def baseline(a, x, y, alpha):
    # float32: addr in float16 rounds the product before the add and fails atol.
    return torch.addr(a.float(), x.float(), y.float(), alpha=alpha).to(a.dtype)
