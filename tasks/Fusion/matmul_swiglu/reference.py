import torch.nn.functional as F


def reference(x, w):
    f = w.shape[0] // 2
    h = x.double() @ w.double().T
    return (F.silu(h[:, :f]) * h[:, f:]).to(x.dtype)
