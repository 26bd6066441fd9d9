import torch
import torch.nn.functional as F


def reference(logits, target, grad_out):
    with torch.enable_grad():
        x = logits.double().requires_grad_(True)
        loss = F.cross_entropy(x, target)
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(logits.dtype)


def baseline(logits, target, grad_out):
    # float32: in bfloat16 the rounded probabilities put small gradients past rtol
    n = logits.shape[0]
    g = torch.softmax(logits.float(), dim=-1)
    g[torch.arange(n, device=logits.device), target] -= 1.0
    return (g * (grad_out / n)).to(logits.dtype)
