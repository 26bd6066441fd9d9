import torch.nn.functional as F


def reference(x, out_len):
    return F.adaptive_avg_pool1d(x.double(), out_len).to(x.dtype)


def baseline(x, out_len):
    return F.adaptive_avg_pool1d(x, out_len)
