import torch


def reference(x):
    values, indices = torch.cummax(x, dim=-1)
    return (values, indices)
