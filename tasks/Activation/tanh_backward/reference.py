import torch


def reference(y, grad_out):
    yf = y.float()
    return (grad_out.float() * (1.0 - yf * yf)).to(y.dtype)


def baseline(y, grad_out):
    return torch.ops.aten.tanh_backward(grad_out, y)
