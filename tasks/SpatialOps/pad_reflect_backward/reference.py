import torch
import torch.nn.functional as F


def reference(x, pad, grad_out):
    xd = x.double().requires_grad_(True)
    with torch.enable_grad():
        y = F.pad(xd, tuple(pad), mode="reflect")
        (gx,) = torch.autograd.grad(y, xd, grad_out.double())
    return gx.to(x.dtype)
