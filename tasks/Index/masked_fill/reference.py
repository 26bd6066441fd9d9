import torch


def reference(x, mask, value):
    return x.masked_fill(mask[:, None, :], value)
