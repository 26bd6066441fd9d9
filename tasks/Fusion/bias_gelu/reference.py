import torch.nn.functional as F


def reference(x, b):
    return F.gelu(x.float() + b.float(), approximate="none").to(x.dtype)
