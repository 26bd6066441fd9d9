import torch
import torch.nn.functional as F


def reference(logits, target, smoothing, grad_out):
    with torch.enable_grad():
        x = logits.double().requires_grad_(True)
        loss = F.cross_entropy(x, target, label_smoothing=smoothing)
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(logits.dtype)
