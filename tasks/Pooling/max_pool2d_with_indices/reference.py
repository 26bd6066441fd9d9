import torch.nn.functional as F


def reference(x):
    v, i = F.max_pool2d(x.float(), kernel_size=3, stride=2, padding=1, return_indices=True)
    return v.to(x.dtype), i


def baseline(x):
    return F.max_pool2d(x, kernel_size=3, stride=2, padding=1, return_indices=True)
