import torch


def reference(a, b):
    return torch.bitwise_and(a, b), torch.bitwise_or(a, b), torch.bitwise_xor(a, b)
