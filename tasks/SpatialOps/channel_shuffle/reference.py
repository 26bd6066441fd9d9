import torch.nn.functional as F


def reference(x, groups):
    return F.channel_shuffle(x, groups).contiguous()
