import torch
import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, grad_out, num_groups):
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        out = F.group_norm(xd, num_groups, weight.double(), None, EPS)
        (gx,) = torch.autograd.grad(out, (xd,), grad_out.double())
    return gx.to(x.dtype)
