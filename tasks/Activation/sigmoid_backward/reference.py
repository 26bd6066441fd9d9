import torch


def reference(x, grad_out):
    # float64, in the symmetric form e / (1 + e)^2 (e = exp(-|x|)): the exact gradient rounded
    # once (float32's s * (1 - s) loses 1 - s for x >> 0)
    xd = x.double()
    e = torch.exp(-xd.abs())
    return (grad_out.double() * (e / ((1.0 + e) * (1.0 + e)))).to(x.dtype)


def baseline(x, grad_out):
    # float32 and sigmoid(x) * sigmoid(-x): grad * y * (1 - y) (autograd's form) loses 1 - y for
    # x >> 0 and fails the float32 atol, and the float16/bfloat16 products fail rtol
    xf = x.float()
    return (grad_out.float() * torch.sigmoid(xf) * torch.sigmoid(-xf)).to(x.dtype)
