import torch.nn.functional as F


def reference(x, r):
    return F.pixel_shuffle(x, r).contiguous()
