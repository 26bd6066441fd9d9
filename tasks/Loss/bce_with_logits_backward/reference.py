import torch
import torch.nn.functional as F


def reference(logits, target, grad_out):
    with torch.enable_grad():
        x = logits.double().requires_grad_(True)
        loss = F.binary_cross_entropy_with_logits(x, target.double())
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(logits.dtype)


def baseline(logits, target, grad_out):
    return (torch.sigmoid(logits) - target) * (grad_out / logits.numel())
