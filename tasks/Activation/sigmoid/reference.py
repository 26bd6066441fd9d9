import torch
import torch.nn.functional as F


def reference(x):
    return torch.sigmoid(x.float()).to(x.dtype)


def baseline(x):
    return torch.sigmoid(x)
