import torch
import torch.nn.functional as F


def reference(x, w, grad_out):
    # Autograd of the depthwise conv2d in float64 (no TF32), rounded once.
    xd = x.double().requires_grad_(True)
    wd = w.double().requires_grad_(True)
    with torch.enable_grad():
        y = F.conv2d(xd, wd, padding=1, groups=x.shape[1])
        dx, dw = torch.autograd.grad(y, (xd, wd), grad_out.double())
    return dx.to(x.dtype), dw.to(x.dtype)


def baseline(x, w, grad_out):
    # What autograd runs for the depthwise conv2d's backward; float32 because CPU's
    # float16/bfloat16 convolution backward rounds partial sums and fails the tolerance.
    dx, dw, _ = torch.ops.aten.convolution_backward(
        grad_out.float(), x.float(), w.float(), None, [1, 1], [1, 1], [1, 1], False, [0, 0],
        x.shape[1], [True, True, False])
    return dx.to(x.dtype), dw.to(x.dtype)
