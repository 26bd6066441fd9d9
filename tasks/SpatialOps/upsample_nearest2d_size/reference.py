import torch.nn.functional as F


def reference(x, OH, OW):
    return F.interpolate(x, size=(OH, OW), mode="nearest").contiguous()
