import torch
import torch.nn.functional as F


def reference(logits, target, smoothing, grad_out):
    with torch.enable_grad():
        x = logits.double().requires_grad_(True)
        loss = F.cross_entropy(x, target, label_smoothing=smoothing)
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(logits.dtype)


def baseline(logits, target, smoothing, grad_out):
    # float32: in bfloat16 the rounded probabilities and targets cancel in p - q, past rtol
    n, c = logits.shape
    q = torch.full((n, c), smoothing / c, dtype=torch.float32, device=logits.device)
    q[torch.arange(n, device=logits.device), target] += 1.0 - smoothing
    return ((torch.softmax(logits.float(), dim=-1) - q) * (grad_out / n)).to(logits.dtype)
