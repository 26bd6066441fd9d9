import torch
import torch.nn.functional as F


def reference(x1, x2, y, margin, grad_out):
    # float64 autograd, rounded once
    with torch.enable_grad():
        a = x1.double().requires_grad_(True)
        b = x2.double().requires_grad_(True)
        loss = F.margin_ranking_loss(a, b, y.double(), margin=margin)
        ga, gb = torch.autograd.grad(loss, (a, b), grad_out.double())
    return ga.to(x1.dtype), gb.to(x1.dtype)


def baseline(x1, x2, y, margin, grad_out):
    # float32 closed form (autograd's mask: t >= 0)
    yf = y.float()
    t = -yf * (x1.float() - x2.float()) + margin
    g = torch.where(t >= 0, -yf * (grad_out / x1.numel()), 0.0)
    return g.to(x1.dtype), (-g).to(x1.dtype)
