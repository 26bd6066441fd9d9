import torch.nn.functional as F


def reference(x):
    y = F.interpolate(x.double(), scale_factor=2, mode="bicubic", align_corners=False)
    return y.to(x.dtype)


def baseline(x):
    return F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
