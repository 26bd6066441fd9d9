import torch
import torch.nn.functional as F


def reference(x, beta):
    return F.softplus(x.float(), beta=beta, threshold=20.0).to(x.dtype)


def baseline(x, beta):
    return F.softplus(x, beta=beta, threshold=20.0)
