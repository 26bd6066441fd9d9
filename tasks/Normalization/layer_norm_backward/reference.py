import torch
import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, grad_out):
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        wd = weight.double().requires_grad_(True)
        bd = torch.zeros_like(wd, requires_grad=True)
        out = F.layer_norm(xd, (x.shape[-1],), wd, bd, EPS)
        gx, gw, gb = torch.autograd.grad(out, (xd, wd, bd), grad_out.double())
    return (gx.to(x.dtype), gw.to(x.dtype), gb.to(x.dtype))
