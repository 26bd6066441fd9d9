import torch.nn.functional as F


def reference(x):
    return F.max_pool2d(x.float(), kernel_size=3, stride=1, padding=1, dilation=2).to(x.dtype)


def baseline(x):
    return F.max_pool2d(x, kernel_size=3, stride=1, padding=1, dilation=2)
