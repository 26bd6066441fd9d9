import torch
import torch.nn.functional as F


def _forward(x):
    return x * torch.sigmoid(1.702 * x)


def reference(x, grad_out):
    # float64 autograd of the forward, rounded once
    with torch.enable_grad():
        xd = x.detach().double().requires_grad_(True)
        (grad_x,) = torch.autograd.grad(_forward(xd), xd, grad_out.double())
    return grad_x.to(x.dtype)


def baseline(x, grad_out):
    return torch.ops.aten.silu_backward(grad_out.float(), 1.702 * x.float()).to(x.dtype)
