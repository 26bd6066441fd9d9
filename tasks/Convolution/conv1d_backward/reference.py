import torch
import torch.nn.functional as F


def reference(x, w, grad_out):
    # Autograd of conv1d in float64 (cuDNN may use TF32 for float32), rounded once.
    xd = x.double().requires_grad_(True)
    wd = w.double().requires_grad_(True)
    bd = torch.zeros(w.shape[0], dtype=torch.float64, device=w.device, requires_grad=True)
    with torch.enable_grad():
        y = F.conv1d(xd, wd, bd, padding=w.shape[2] // 2)
        dx, dw, db = torch.autograd.grad(y, (xd, wd, bd), grad_out.double())
    return dx.to(x.dtype), dw.to(x.dtype), db.to(x.dtype)


def baseline(x, w, grad_out):
    # What autograd runs for conv1d's backward; float32 because CPU's float16/bfloat16
    # convolution backward rounds partial sums and fails the tolerance.
    dx, dw, db = torch.ops.aten.convolution_backward(
        grad_out.float(), x.float(), w.float(), [w.shape[0]], [1], [w.shape[2] // 2], [1],
        False, [0], 1, [True, True, True])
    return dx.to(x.dtype), dw.to(x.dtype), db.to(x.dtype)
