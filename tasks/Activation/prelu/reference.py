import torch
import torch.nn.functional as F


def reference(x, weight):
    return F.prelu(x.float(), weight.float()).to(x.dtype)


def baseline(x, weight):
    return F.prelu(x, weight)
