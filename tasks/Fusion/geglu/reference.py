import torch.nn.functional as F


def reference(x):
    n = x.shape[-1] // 2
    xf = x.float()
    return (F.gelu(xf[:, :n], approximate="none") * xf[:, n:]).to(x.dtype)


def baseline(x):
    n = x.shape[-1] // 2
    return F.gelu(x[:, :n], approximate="none") * x[:, n:]
