import torch


def reference(a, s):
    u = a.to(torch.int64) & 0xFFFFFFFF
    s64 = s.to(torch.int64)
    r = ((u << s64) | (u >> (32 - s64))) & 0xFFFFFFFF
    return torch.where(r >= 2**31, r - 2**32, r).to(torch.int32)
