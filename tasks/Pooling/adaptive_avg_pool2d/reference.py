import torch
import torch.nn.functional as F


def reference(x, OH, OW):
    return F.adaptive_avg_pool2d(x.double(), (OH, OW)).to(x.dtype)


def baseline(x, OH, OW):
    return F.adaptive_avg_pool2d(x, (OH, OW))
