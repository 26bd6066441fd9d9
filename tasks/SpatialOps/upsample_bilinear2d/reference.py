import torch
import torch.nn.functional as F


def reference(x):
    y = F.interpolate(x.float(), scale_factor=2, mode="bilinear", align_corners=False)
    return y.to(x.dtype)


def baseline(x):
    return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
