import torch


def reference(c, a, b, beta, alpha):
    # float64: exact products, no TF32; rounded once to the output dtype. beta == 0 ignores c.
    d = alpha * torch.bmm(a.double(), b.double())
    if beta != 0.0:
        d = d + beta * c.double()
    return d.to(a.dtype)


def baseline(c, a, b, beta, alpha):
    return torch.baddbmm(c, a, b, beta=beta, alpha=alpha)
