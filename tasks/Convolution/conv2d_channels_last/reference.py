import torch
import torch.nn.functional as F


def reference(x, w, b):
    # float64 (cuDNN may use TF32 for float32), rounded once.
    return F.conv2d(x.double(), w.double(), b.double(), padding=1).to(x.dtype)


def baseline(x, w, b):
    return F.conv2d(x, w, b, padding=1)
