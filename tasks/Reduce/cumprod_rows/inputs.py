import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    # |x| = exp(u), u uniform in [-0.02, 0.02]: products of 16k factors stay within ~e^+-6
    u = torch.rand((M, N), generator=gen, device=dev) * 0.04 - 0.02
    sign = torch.where(torch.rand((M, N), generator=gen, device=dev) < 0.5, 1.0, -1.0)
    x = sign * torch.exp(u)
    if mode == "outlier":
        pick = torch.rand((M, N), generator=gen, device=dev)
        x = torch.where(pick < 2e-3, sign * 2.0, x)                       # exact doublings
        x = torch.where((pick >= 2e-3) & (pick < 4e-3), sign * 0.5, x)    # exact halvings
        if M >= 2:
            x[1, N // 2] = 0.0   # a zero: the rest of the row is zero
    return (x.to(dtype_of(dtype)),)
