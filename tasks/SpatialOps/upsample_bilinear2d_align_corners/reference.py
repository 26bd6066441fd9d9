import torch.nn.functional as F


def reference(x, OH, OW):
    y = F.interpolate(x.double(), size=(OH, OW), mode="bilinear", align_corners=True)
    return y.to(x.dtype)
