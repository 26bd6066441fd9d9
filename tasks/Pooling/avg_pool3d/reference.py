import torch.nn.functional as F


def reference(x):
    return F.avg_pool3d(x.double(), kernel_size=2, stride=2).to(x.dtype)
