import torch

from kgb.tasks.inputs import dtype_of, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    # log|x| uniform in [-c, c], c shrinking with N past 16384: the products' log-walk has a
    # standard deviation of at most ~1.5, so they stay far inside float16 (e^11 overflows)
    c = 0.02 * min(1.0, (16384 / N) ** 0.5)
    u = (torch.rand((M, N), generator=gen, device=dev) * 2.0 - 1.0) * c
    sign = torch.where(torch.rand((M, N), generator=gen, device=dev) < 0.5, 1.0, -1.0)
    # (Planted factors of 2 and 1/2, as in cumprod_rows, make out span 1e-5..1e5 here, and the
    # suffix sums cancel beyond what any float32 order can hold: only grad_out gets outliers.)
    x = (sign * torch.exp(u)).to(dtype_of(dtype))
    out = torch.cumprod(x.float(), dim=-1).to(x.dtype)   # what the forward saved
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode, scale=1e2)
    return (x, out, grad_out)
