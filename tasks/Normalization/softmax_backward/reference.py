import torch


def reference(y, grad_out):
    yd, gd = y.double(), grad_out.double()
    return (yd * (gd - (gd * yd).sum(dim=-1, keepdim=True))).to(y.dtype)


def baseline(y, grad_out):
    return torch._softmax_backward_data(grad_out, y, -1, y.dtype)
