import torch.nn.functional as F


def reference(x):
    return F.max_pool1d(x.float(), kernel_size=3, stride=2, padding=1).to(x.dtype)


def baseline(x):
    return F.max_pool1d(x, kernel_size=3, stride=2, padding=1)
