import torch


def reference(x):
    order = torch.sort(x.float(), dim=1, descending=False, stable=True).indices.contiguous()
    return torch.gather(x, 1, order), order


def baseline(x):
    values, indices = torch.sort(x, dim=1, descending=False, stable=True)
    return values, indices
