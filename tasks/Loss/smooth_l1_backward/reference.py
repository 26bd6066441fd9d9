import torch
import torch.nn.functional as F


def reference(input, target, beta, grad_out):
    with torch.enable_grad():
        x = input.double().requires_grad_(True)
        loss = F.smooth_l1_loss(x, target.double(), beta=beta)
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(input.dtype)


def baseline(input, target, beta, grad_out):
    return torch.clamp((input - target) / beta, -1, 1) * (grad_out / input.numel())
