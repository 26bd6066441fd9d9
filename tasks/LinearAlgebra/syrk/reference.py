import torch


def reference(a, c, alpha, beta):
    ad, cd = a.double(), c.double()
    full = alpha * (ad @ ad.T) + beta * cd
    lower = torch.ones_like(cd, dtype=torch.bool).tril()
    return torch.where(lower, full, cd).to(a.dtype)


def baseline(a, c, alpha, beta):
    full = torch.addmm(c, a, a.T, beta=beta, alpha=alpha)
    return torch.where(torch.ones_like(c, dtype=torch.bool).tril(), full, c)
