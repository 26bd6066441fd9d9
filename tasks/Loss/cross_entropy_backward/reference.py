import torch
import torch.nn.functional as F


def reference(logits, target, grad_out):
    with torch.enable_grad():
        x = logits.double().requires_grad_(True)
        loss = F.cross_entropy(x, target)
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(logits.dtype)
