import torch

from kgb.tasks.inputs import dtype_of, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    u = torch.rand((M, N), generator=gen, device=dev) * 0.04 - 0.02
    sign = torch.where(torch.rand((M, N), generator=gen, device=dev) < 0.5, 1.0, -1.0)
    x = sign * torch.exp(u)
    if mode == "outlier":
        pick = torch.rand((M, N), generator=gen, device=dev)
        x = torch.where(pick < 2e-3, sign * 2.0, x)
        x = torch.where((pick >= 2e-3) & (pick < 4e-3), sign * 0.5, x)
    x = x.to(dtype_of(dtype))
    out = torch.cumprod(x.float(), dim=-1).to(x.dtype)   # what the forward saved
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    return (x, out, grad_out)
