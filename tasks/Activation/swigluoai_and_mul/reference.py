import torch
import torch.nn.functional as F


def reference(x):
    xf = x.float()
    g = xf[:, 0::2].clamp(max=7.0)
    u = xf[:, 1::2].clamp(min=-7.0, max=7.0)
    return ((u + 1.0) * g * torch.sigmoid(1.702 * g)).to(x.dtype)


def baseline(x):
    # float32: the four roundings of the bfloat16 chain fail the bfloat16 rtol
    xf = x.float()
    g = xf[:, 0::2].clamp(max=7.0)
    u = xf[:, 1::2].clamp(min=-7.0, max=7.0)
    return ((u + 1) * (g * torch.sigmoid(1.702 * g))).to(x.dtype)
