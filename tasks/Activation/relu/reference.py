import torch
import torch.nn.functional as F


def reference(x):
    return torch.relu(x.float()).to(x.dtype)


def baseline(x):
    return torch.relu(x)
