import torch


def reference(x, w, grad_out):
    grad_x = (grad_out.float() * w.float()).to(x.dtype)
    grad_w = (grad_out.double() * x.double()).sum(dim=0).to(x.dtype)
    return grad_x, grad_w
