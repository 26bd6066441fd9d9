import torch.nn.functional as F


def reference(x, y):
    return (F.silu(x.float()) + y.float()).to(x.dtype)


def baseline(x, y):
    return F.silu(x) + y
