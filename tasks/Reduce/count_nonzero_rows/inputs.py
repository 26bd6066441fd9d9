import torch

from kgb.tasks.inputs import dtype_of, maybe_outliers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    z = torch.randn((M, N), generator=gen, device=dev)
    # per-row density of nonzeros between 10% and 90%
    density = 0.1 + 0.8 * torch.rand((M, 1), generator=gen, device=dev)
    u = torch.rand((M, N), generator=gen, device=dev)
    x = torch.where(u < density, z, torch.zeros_like(z))
    # a share of the zeros are negative zeros
    neg = torch.rand((M, N), generator=gen, device=dev) < 0.3
    x = torch.where((x == 0) & neg, torch.full_like(x, -0.0), x).to(dtype_of(dtype))
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        if M >= 4:
            # Edge cases: an all-zero row (with negative zeros), a row without zeros, and a
            # row of tiny nonzero values (the smallest normal number of the dtype).
            x[0] = -0.0
            x[1] = 1.0
            x[2, : N // 2] = torch.finfo(x.dtype).tiny
    return (x,)
