import torch
import torch.nn.functional as F


def reference(x, grad_out):
    xd = x.double().requires_grad_(True)
    with torch.enable_grad():
        y = F.interpolate(xd, scale_factor=2, mode="nearest")
        (gx,) = torch.autograd.grad(y, xd, grad_out.double())
    return gx.to(x.dtype)
