import torch


def reference(idx, weight, grad_out):
    V, D = weight.shape
    grad = torch.zeros((V, D), dtype=torch.float64, device=weight.device)
    grad.index_add_(0, idx.reshape(-1), grad_out.reshape(-1, D).double())
    return grad.to(weight.dtype)
