import torch
import torch.nn.functional as F


def reference(x, w, b, gamma, beta, groups):
    # float64 throughout (cuDNN may use TF32 for float32), rounded once.
    z = F.conv2d(x.double(), w.double(), b.double(), padding=1)
    z = F.group_norm(z, groups, gamma.double(), beta.double(), eps=1e-5)
    return F.silu(z).to(x.dtype)


def baseline(x, w, b, gamma, beta, groups):
    z = F.conv2d(x, w, b, padding=1)
    return F.silu(F.group_norm(z, groups, gamma, beta, eps=1e-5))
