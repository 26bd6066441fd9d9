import torch


def reference(x):
    values, indices = torch.max(x, dim=1)
    return (values, indices)
