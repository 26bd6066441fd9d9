import torch.nn.functional as F


def reference(x):
    y = F.avg_pool1d(x.double(), kernel_size=4, stride=2, padding=1, count_include_pad=False)
    return y.to(x.dtype)


def baseline(x):
    return F.avg_pool1d(x, kernel_size=4, stride=2, padding=1, count_include_pad=False)
