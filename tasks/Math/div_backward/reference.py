import torch


def reference(x, y, grad_out):
    with torch.enable_grad():
        xf = x.detach().float().requires_grad_(True)
        yf = y.detach().float().requires_grad_(True)
        grad_x, grad_y = torch.autograd.grad(xf / yf, (xf, yf), grad_out.float())
    return grad_x.to(x.dtype), grad_y.to(x.dtype)
