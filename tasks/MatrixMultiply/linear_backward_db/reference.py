import torch


def reference(grad_out):
    # dL/db of y = x @ w.T + b: the column sums of grad_out, in float64, rounded once.
    return grad_out.double().sum(dim=0).to(grad_out.dtype)


def baseline(grad_out):
    return grad_out.sum(dim=0)
