import torch

EPS = 1e-6


def _forward(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + EPS) * (1.0 + weight)


def reference(x, weight, grad_out):
    # float64 autograd, rounded once
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        wd = weight.double().requires_grad_(True)
        gx, gw = torch.autograd.grad(_forward(xd, wd), (xd, wd), grad_out.double())
    return gx.to(x.dtype), gw.to(x.dtype)


def baseline(x, weight, grad_out):
    # float32 autograd of the float32 forward, as Gemma's modules compute it
    with torch.enable_grad():
        xf = x.detach().float().requires_grad_(True)
        wf = weight.detach().float().requires_grad_(True)
        gx, gw = torch.autograd.grad(_forward(xf, wf), (xf, wf), grad_out.float())
    return gx.to(x.dtype), gw.to(x.dtype)
