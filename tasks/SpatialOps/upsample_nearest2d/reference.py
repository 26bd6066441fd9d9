import torch.nn.functional as F


def reference(x):
    return F.interpolate(x, scale_factor=2, mode="nearest").contiguous()
