import torch.nn.functional as F


def reference(x):
    return F.unfold(x, kernel_size=3, padding=1, stride=2).contiguous()
