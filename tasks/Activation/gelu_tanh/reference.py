import torch
import torch.nn.functional as F


def reference(x):
    return F.gelu(x.float(), approximate="tanh").to(x.dtype)


def baseline(x):
    return F.gelu(x, approximate="tanh")
