import torch
import torch.nn.functional as F


def reference(x):
    y = F.avg_pool2d(x.double(), kernel_size=3, stride=2, padding=1, count_include_pad=True)
    return y.to(x.dtype)


def baseline(x):
    return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1, count_include_pad=True)
