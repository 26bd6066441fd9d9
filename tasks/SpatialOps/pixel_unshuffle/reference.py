import torch.nn.functional as F


def reference(x, r):
    return F.pixel_unshuffle(x, r).contiguous()
