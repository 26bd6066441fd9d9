import torch
import torch.nn.functional as F


def reference(logits, target, grad_out):
    with torch.enable_grad():
        x = logits.double().requires_grad_(True)
        loss = F.cross_entropy(x, target.double())
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(logits.dtype)


def baseline(logits, target, grad_out):
    # float32: p * s - t cancels; in bfloat16 the rounded terms miss rtol
    t = target.float()
    p = torch.softmax(logits.float(), dim=-1)
    g = (p * t.sum(dim=-1, keepdim=True) - t) * (grad_out / logits.shape[0])
    return g.to(logits.dtype)
