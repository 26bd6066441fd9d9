import torch.nn.functional as F


def reference(x, OL):
    return F.interpolate(x.double(), size=OL, mode="linear", align_corners=False).to(x.dtype)
