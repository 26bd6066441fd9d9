import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # a slowly rising trend keeps new maxima appearing along the whole row
    trend = torch.linspace(0.0, 4.0, N, device=gen.device)
    x = (torch.randn((M, N), generator=gen, device=gen.device) + trend).to(getattr(torch, dtype))
    x = maybe_outliers(x, gen, mode)
    if mode == "outlier" and M >= 4:
        # Ties: a constant row (indices = 0, 1, 2, ...); a row whose maximum repeats at N // 3
        # and N - 1 (the later index takes over); an all-negative decreasing row (values stay
        # at the first element, index 0).
        x[0] = 0.75
        x[1, N // 3] = 5e3
        x[1, N - 1] = 5e3
        x[2] = (-1.0 - torch.arange(N, device=gen.device, dtype=torch.float32)).to(x.dtype)
    return (x,)
