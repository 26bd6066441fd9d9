import torch
import torch.nn.functional as F

EPS = 1e-5


def _forward(x, z, weight):
    g = x * F.silu(z)
    return F.rms_norm(g, (x.shape[-1],), weight, EPS)


def reference(x, z, weight, grad_out):
    # float64 autograd, rounded once
    with torch.enable_grad():
        xd, zd, wd = (t.double().requires_grad_(True) for t in (x, z, weight))
        gx, gz, gw = torch.autograd.grad(_forward(xd, zd, wd), (xd, zd, wd), grad_out.double())
    return (gx.to(x.dtype), gz.to(x.dtype), gw.to(x.dtype))


def baseline(x, z, weight, grad_out):
    # float32 autograd, as the kernel computes (fla upcasts too)
    with torch.enable_grad():
        xf, zf, wf = (t.detach().float().requires_grad_(True) for t in (x, z, weight))
        gx, gz, gw = torch.autograd.grad(_forward(xf, zf, wf), (xf, zf, wf), grad_out.float())
    return (gx.to(x.dtype), gz.to(x.dtype), gw.to(x.dtype))
