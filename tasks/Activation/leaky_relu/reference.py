import torch
import torch.nn.functional as F


def reference(x, negative_slope):
    return F.leaky_relu(x.float(), negative_slope).to(x.dtype)


def baseline(x, negative_slope):
    return F.leaky_relu(x, negative_slope)
