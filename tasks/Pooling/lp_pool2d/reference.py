import torch.nn.functional as F


def reference(x):
    return F.lp_pool2d(x.double(), norm_type=2, kernel_size=3, stride=2).to(x.dtype)
