import torch


def reference(x, grad_out):
    # float64, in the symmetric form e / (1 + e)^2 (e = exp(-|x|)): the exact gradient rounded
    # once (float32's s * (1 - s) loses 1 - s for x >> 0)
    xd = x.double()
    e = torch.exp(-xd.abs())
    return (grad_out.double() * (e / ((1.0 + e) * (1.0 + e)))).to(x.dtype)
