import torch
import torch.nn.functional as F


def reference(x, w, b):
    return torch.relu(F.linear(x.float(), w.float(), b.float())).to(x.dtype)


def baseline(x, w, b):
    return torch.relu(F.linear(x, w, b))
