import torch


def reference(x, grad_out):
    # float64 autograd, rounded once
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        (g,) = torch.autograd.grad(torch.cumsum(xd, dim=-1), (xd,), grad_out.double())
    return g.to(x.dtype)


def baseline(x, grad_out):
    # float32 running totals, as the kernel carries them
    rev = torch.flip(grad_out.float(), dims=[-1])
    return torch.flip(torch.cumsum(rev, dim=-1), dims=[-1]).to(x.dtype)
