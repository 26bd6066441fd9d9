import torch


def _symmetric(a):
    return a.tril() + a.tril(-1).mT


def reference(alpha, a, x, beta, y):
    # float64 from the lower triangle only, rounded once to the inputs' dtype
    out = alpha * torch.mv(_symmetric(a.double()), x.double()) + beta * y.double()
    return out.to(a.dtype)


def baseline(alpha, a, x, beta, y):
    return torch.addmv(y, _symmetric(a), x, beta=beta, alpha=alpha)
