import torch.nn.functional as F


def reference(x, out_len):
    v, i = F.adaptive_max_pool1d(x.float(), out_len, return_indices=True)
    return v.to(x.dtype), i


def baseline(x, out_len):
    return F.adaptive_max_pool1d(x, out_len, return_indices=True)
