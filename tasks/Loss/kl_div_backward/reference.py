import torch
import torch.nn.functional as F


def reference(input, target, grad_out):
    with torch.enable_grad():
        x = input.double().requires_grad_(True)
        loss = F.kl_div(x, target.double(), reduction="batchmean", log_target=False)
        (g,) = torch.autograd.grad(loss, (x,), grad_out.double())
    return g.to(input.dtype)


def baseline(input, target, grad_out):
    return (target.float() * (-grad_out / input.shape[0])).to(input.dtype)
