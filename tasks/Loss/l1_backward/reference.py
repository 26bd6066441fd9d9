import torch
import torch.nn.functional as F


def reference(input, target, grad_out):
    with torch.enable_grad():
        x = input.double().requires_grad_(True)
        loss = F.l1_loss(x, target.double())
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(input.dtype)


def baseline(input, target, grad_out):
    return (torch.sign(input.float() - target.float()) * (grad_out / input.numel())).to(input.dtype)
