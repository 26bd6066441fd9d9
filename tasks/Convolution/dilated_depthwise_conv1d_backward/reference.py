import torch
import torch.nn.functional as F


def reference(x, w, grad_out):
    # float64 autograd, rounded once
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        wd = w.double().requires_grad_(True)
        y = F.conv1d(xd, wd, padding=2, dilation=2, groups=x.shape[1])
        gx, gw = torch.autograd.grad(y, (xd, wd), grad_out.double())
    return gx.to(x.dtype), gw.to(x.dtype)


def baseline(x, w, grad_out):
    # what autograd runs, in the inputs' dtype
    C = x.shape[1]
    gx = torch.nn.grad.conv1d_input(x.shape, w, grad_out, padding=2, dilation=2, groups=C)
    gw = torch.nn.grad.conv1d_weight(x, w.shape, grad_out, padding=2, dilation=2, groups=C)
    return gx, gw
