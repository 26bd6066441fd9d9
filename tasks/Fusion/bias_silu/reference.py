import torch.nn.functional as F


def reference(x, b):
    return F.silu(x.float() + b.float()).to(x.dtype)
