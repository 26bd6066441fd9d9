import torch


def reference(x, w, residual):
    return (residual.double() + x.double() @ w.double().T).to(x.dtype)


def baseline(x, w, residual):
    return torch.addmm(residual, x, w.T)
