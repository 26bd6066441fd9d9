import torch


def reference(a, b, c, alpha, beta):
    ad, bd, cd = a.double(), b.double(), c.double()
    full = alpha * (ad @ bd.T + bd @ ad.T) + beta * cd
    upper = torch.ones_like(cd, dtype=torch.bool).triu()
    return torch.where(upper, full, cd).to(a.dtype)


def baseline(a, b, c, alpha, beta):
    full = torch.addmm(torch.addmm(c, a, b.T, beta=beta, alpha=alpha), b, a.T, alpha=alpha)
    return torch.where(torch.ones_like(c, dtype=torch.bool).triu(), full, c)
