import torch
import torch.nn.functional as F


def reference(log_probs, target, grad_out):
    with torch.enable_grad():
        x = log_probs.double().requires_grad_(True)
        loss = F.nll_loss(x, target, ignore_index=-100)
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(log_probs.dtype)
