import torch.nn.functional as F


def reference(x):
    n = x.shape[-1] // 2
    xf = x.float()
    return (F.silu(xf[:, :n]) * xf[:, n:]).to(x.dtype)


def baseline(x):
    n = x.shape[-1] // 2
    return F.silu(x[:, :n]) * x[:, n:]
