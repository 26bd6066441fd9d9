import torch
import torch.nn.functional as F


def reference(x):
    return F.max_pool2d(x.float(), kernel_size=2, stride=2).to(x.dtype)


def baseline(x):
    return F.max_pool2d(x, kernel_size=2, stride=2)
