import torch


def reference(x):
    # the first index of the largest |x| per row (torch.argmax returns the first maximal one)
    return x.abs().argmax(dim=1)
