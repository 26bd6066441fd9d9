import torch
import torch.nn.functional as F


def reference(x):
    return (x.float() * torch.sigmoid(1.702 * x.float())).to(x.dtype)


def baseline(x):
    # float32: the three roundings of the bfloat16 chain fail the bfloat16 rtol
    xf = x.float()
    return (xf * torch.sigmoid(1.702 * xf)).to(x.dtype)
