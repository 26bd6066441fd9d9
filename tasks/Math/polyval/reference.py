import torch


def reference(x, coeffs):
    xd = x.double()
    p = torch.full_like(xd, float(coeffs[-1]))
    for c in coeffs.double().flip(0)[1:]:
        p = p * xd + c
    return p.to(x.dtype)
