import torch
import torch.nn.functional as F


def reference(x, w, b):
    # float64 (cuDNN may use TF32 for float32), rounded once.
    return F.conv1d(x.double(), w.double(), b.double(), padding=w.shape[2] // 2).to(x.dtype)


def baseline(x, w, b):
    return F.conv1d(x, w, b, padding=w.shape[2] // 2)
