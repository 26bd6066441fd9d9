import torch
import torch.nn.functional as F


def reference(x, w, b):
    # float64, not float32: on CUDA, cuDNN convolutions may use TF32 for float32 by default
    # (torch.backends.cudnn.allow_tf32), which would make the target itself ~1e-3 off; the
    # float64 result rounded once is the exact answer for every dtype.
    return F.conv2d(x.double(), w.double(), b.double(), stride=1, padding=1).to(x.dtype)


def baseline(x, w, b):
    return F.conv2d(x, w, b, stride=1, padding=1)
