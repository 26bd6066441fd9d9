import torch
import torch.nn.functional as F


def reference(x, grad_out):
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        y = F.normalize(xd, p=2.0, dim=-1, eps=1e-12)
        (gx,) = torch.autograd.grad(y, (xd,), grad_out.double())
    return gx.to(x.dtype)
