import torch


def reference(grad_out, w):
    # dL/dx of y = x @ w.T + b: grad_out @ w, in float64, rounded once.
    return (grad_out.double() @ w.double()).to(grad_out.dtype)


def baseline(grad_out, w):
    return grad_out @ w
