import torch


def reference(x, coeffs):
    xd = x.double()
    p = torch.full_like(xd, float(coeffs[-1]))
    for c in coeffs.double().flip(0)[1:]:
        p = p * xd + c
    return p.to(x.dtype)


def baseline(x, coeffs):
    # float32: Horner in bfloat16 rounds every step and fails rtol
    xf = x.float()
    p = torch.zeros_like(xf)
    for c in coeffs.flip(0):
        p = p * xf + c
    return p.to(x.dtype)
