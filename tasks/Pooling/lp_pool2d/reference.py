import torch.nn.functional as F


def reference(x):
    return F.lp_pool2d(x.double(), norm_type=2, kernel_size=3, stride=2).to(x.dtype)


def baseline(x):
    # float32: squares of the ~1e3 outliers overflow float16.
    return F.lp_pool2d(x.float(), norm_type=2, kernel_size=3, stride=2).to(x.dtype)
