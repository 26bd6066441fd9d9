import torch


def reference(a, c, alpha, beta):
    ad, cd = a.double(), c.double()
    full = alpha * (ad @ ad.T) + beta * cd
    lower = torch.ones_like(cd, dtype=torch.bool).tril()
    return torch.where(lower, full, cd).to(a.dtype)
