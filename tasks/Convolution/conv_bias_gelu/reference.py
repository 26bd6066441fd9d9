import torch
import torch.nn.functional as F


def reference(x, w, b):
    # float64 throughout (cuDNN may use TF32 for float32), rounded once.
    z = F.conv2d(x.double(), w.double(), b.double(), padding=1)
    return F.gelu(z).to(x.dtype)


def baseline(x, w, b):
    return F.gelu(F.conv2d(x, w, b, padding=1))
