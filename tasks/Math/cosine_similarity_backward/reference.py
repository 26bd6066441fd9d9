import torch
import torch.nn.functional as F


def reference(x1, x2, grad_out):
    # float64 autograd, rounded once
    with torch.enable_grad():
        a = x1.double().requires_grad_(True)
        b = x2.double().requires_grad_(True)
        cos = F.cosine_similarity(a, b, dim=-1, eps=1e-8)
        ga, gb = torch.autograd.grad(cos, (a, b), grad_out.double())
    return ga.to(x1.dtype), gb.to(x1.dtype)


def baseline(x1, x2, grad_out):
    # float32 autograd (as autocast runs it): half sums of squares of ~1e3 overflow
    with torch.enable_grad():
        a = x1.detach().float().requires_grad_(True)
        b = x2.detach().float().requires_grad_(True)
        cos = F.cosine_similarity(a, b, dim=-1, eps=1e-8)
        ga, gb = torch.autograd.grad(cos, (a, b), grad_out.float())
    return ga.to(x1.dtype), gb.to(x1.dtype)
