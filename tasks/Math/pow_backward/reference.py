import torch


def reference(base, exponent, grad_out):
    with torch.enable_grad():
        b = base.detach().float().requires_grad_(True)
        e = exponent.detach().float().requires_grad_(True)
        grad_b, grad_e = torch.autograd.grad(torch.pow(b, e), (b, e), grad_out.float())
    return grad_b.to(base.dtype), grad_e.to(base.dtype)


def baseline(base, exponent, grad_out):
    # float32 math (autograd's formulas, base > 0): base ** (exponent - 1) overflows float16
    # and bfloat16 intermediates fail rtol
    b, e, g = base.float(), exponent.float(), grad_out.float()
    grad_base = g * (e * torch.pow(b, e - 1))
    grad_exponent = g * (torch.pow(b, e) * torch.log(b))
    return grad_base.to(base.dtype), grad_exponent.to(base.dtype)
