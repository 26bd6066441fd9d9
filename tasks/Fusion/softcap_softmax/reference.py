import torch


def reference(x, cap):
    z = cap * torch.tanh(x.double() / cap)
    return torch.softmax(z, dim=-1).to(x.dtype)
