import torch
import torch.nn.functional as F


def reference(x):
    return F.glu(x.float(), dim=-1).to(x.dtype)


def baseline(x):
    return F.glu(x, dim=-1)
