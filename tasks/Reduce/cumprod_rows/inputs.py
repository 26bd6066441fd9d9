import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    # log|x| uniform in [-c, c], c shrinking with N past 16384: the products' log-walk has a
    # standard deviation of at most ~1.5, so they stay far inside float16 (e^11 overflows)
    c = 0.02 * min(1.0, (16384 / N) ** 0.5)
    u = (torch.rand((M, N), generator=gen, device=dev) * 2.0 - 1.0) * c
    sign = torch.where(torch.rand((M, N), generator=gen, device=dev) < 0.5, 1.0, -1.0)
    x = sign * torch.exp(u)
    if mode == "outlier":
        # exact doublings and halvings, about 8 of each per long row (more would walk the
        # products out of float16)
        rate = min(2e-3, 8.0 / N)
        pick = torch.rand((M, N), generator=gen, device=dev)
        x = torch.where(pick < rate, sign * 2.0, x)
        x = torch.where((pick >= rate) & (pick < 2 * rate), sign * 0.5, x)
        if M >= 2:
            x[1, N // 2] = 0.0   # a zero: the rest of the row is zero
    return (x.to(dtype_of(dtype)),)
