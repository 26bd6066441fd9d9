import torch
import torch.nn.functional as F


def _forward(x, weight, bias):
    D, KW = weight.shape
    z = F.conv1d(x, weight.unsqueeze(1), bias, padding=KW - 1, groups=D)[..., : x.shape[-1]]
    return F.silu(z)


def reference(x, weight, bias, grad_out):
    # float64 autograd, rounded once
    with torch.enable_grad():
        xd, wd, bd = (t.double().requires_grad_(True) for t in (x, weight, bias))
        gx, gw, gb = torch.autograd.grad(_forward(xd, wd, bd), (xd, wd, bd), grad_out.double())
    return (gx.to(x.dtype), gw.to(x.dtype), gb.to(x.dtype))


def baseline(x, weight, bias, grad_out):
    # float32 autograd (causal-conv1d computes in float32)
    with torch.enable_grad():
        xf, wf, bf = (t.detach().float().requires_grad_(True) for t in (x, weight, bias))
        gx, gw, gb = torch.autograd.grad(_forward(xf, wf, bf), (xf, wf, bf), grad_out.float())
    return (gx.to(x.dtype), gw.to(x.dtype), gb.to(x.dtype))
