import torch
import torch.nn.functional as F


def _forward(x):
    return F.selu(x)


def reference(x, grad_out):
    # float64 autograd of the forward, rounded once
    with torch.enable_grad():
        xd = x.detach().double().requires_grad_(True)
        (grad_x,) = torch.autograd.grad(_forward(xd), xd, grad_out.double())
    return grad_x.to(x.dtype)


def baseline(x, grad_out):
    return torch.ops.aten.elu_backward(grad_out, 1.6732632423543772, 1.0507009873554805, 1.0, False, x)
