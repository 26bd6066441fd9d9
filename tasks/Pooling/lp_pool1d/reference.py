import torch.nn.functional as F


def reference(x):
    return F.lp_pool1d(x.double(), norm_type=4, kernel_size=3, stride=2).to(x.dtype)


def baseline(x):
    # float32: fourth powers of the ~1e3 outliers overflow float16.
    return F.lp_pool1d(x.float(), norm_type=4, kernel_size=3, stride=2).to(x.dtype)
