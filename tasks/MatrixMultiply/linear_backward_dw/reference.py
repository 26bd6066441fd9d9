import torch


def reference(grad_out, x):
    # dL/dw of y = x @ w.T + b: grad_out.T @ x, in float64, rounded once.
    return (grad_out.double().T @ x.double()).to(grad_out.dtype)


def baseline(grad_out, x):
    return grad_out.T @ x
