import torch
import torch.nn.functional as F


def reference(x):
    return F.elu(x.float()).to(x.dtype)


def baseline(x):
    return F.elu(x)
