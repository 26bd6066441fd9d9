import torch
import torch.nn.functional as F


def _forward(x, alpha):
    return F.elu(x, alpha)


def reference(x, alpha, grad_out):
    # float64 autograd of the forward, rounded once
    with torch.enable_grad():
        xd = x.detach().double().requires_grad_(True)
        (grad_x,) = torch.autograd.grad(_forward(xd, alpha), xd, grad_out.double())
    return grad_x.to(x.dtype)


def baseline(x, alpha, grad_out):
    return torch.ops.aten.elu_backward(grad_out, alpha, 1.0, 1.0, False, x)
