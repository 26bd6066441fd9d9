import torch
import torch.nn.functional as F


def reference(x):
    xf = x.float()
    n = x.shape[-1] // 2
    return (F.gelu(xf[:, :n], approximate="tanh") * xf[:, n:]).to(x.dtype)


def baseline(x):
    n = x.shape[-1] // 2
    return F.gelu(x[:, :n], approximate="tanh") * x[:, n:]
