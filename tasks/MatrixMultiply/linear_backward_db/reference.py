import torch


def reference(grad_out):
    # dL/db of y = x @ w.T + b: the column sums of grad_out, in float64, rounded once.
    return grad_out.double().sum(dim=0).to(grad_out.dtype)
