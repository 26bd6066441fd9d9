import torch
import torch.nn.functional as F


def reference(h, weight, target, grad_out):
    # float64 autograd of the loss, rounded once
    with torch.enable_grad():
        hd = h.double().requires_grad_(True)
        wd = weight.double().requires_grad_(True)
        loss = F.cross_entropy(hd @ wd.T, target)
        gh, gw = torch.autograd.grad(loss, (hd, wd), grad_out.double())
    return (gh.to(h.dtype), gw.to(h.dtype))


def baseline(h, weight, target, grad_out):
    # float32 autograd (what the Liger kernel computes in): half-precision logits miss rtol
    with torch.enable_grad():
        hf = h.detach().float().requires_grad_(True)
        wf = weight.detach().float().requires_grad_(True)
        loss = F.cross_entropy(hf @ wf.T, target)
        gh, gw = torch.autograd.grad(loss, (hf, wf), grad_out)
    return (gh.to(h.dtype), gw.to(h.dtype))
