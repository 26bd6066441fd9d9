import torch
import torch.nn.functional as F


def reference(x, w, b):
    # float64 (cuDNN may use TF32 for float32), rounded once.
    xp = F.pad(x.double(), (1, 1, 1, 1), mode="reflect")
    return F.conv2d(xp, w.double(), b.double()).to(x.dtype)


def baseline(x, w, b):
    return F.conv2d(F.pad(x, (1, 1, 1, 1), mode="reflect"), w, b)
