import torch


def reference(x):
    return torch.log_softmax(x.float(), dim=-1).to(x.dtype)


def baseline(x):
    return torch.log_softmax(x, dim=-1)
