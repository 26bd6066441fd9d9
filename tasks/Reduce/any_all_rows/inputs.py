import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    z = torch.randn((M, N), generator=gen, device=dev)
    z = torch.where(z == 0, torch.ones_like(z), z)  # nonzero values stay nonzero
    # Every row gets a kind: 0 all zero, 1 no zero, 2 exactly one zero, 3 exactly one
    # nonzero, 4 mixed (half zeros).
    kind = torch.randint(0, 5, (M, 1), generator=gen, device=dev)
    if mode == "outlier":
        kind[: min(M, 5), 0] = torch.arange(min(M, 5), device=dev)  # every kind present
    spot = torch.randint(0, N, (M, 1), generator=gen, device=dev)
    if mode == "outlier":
        spot[:, 0] = N - 1  # the single zero / nonzero in the last column of the row
    cols = torch.arange(N, device=dev)[None, :]
    at_spot = cols == spot
    half = torch.rand((M, N), generator=gen, device=dev) < 0.5
    nonzero = torch.where(kind == 0, False,
              torch.where(kind == 1, True,
              torch.where(kind == 2, ~at_spot,
              torch.where(kind == 3, at_spot, half))))
    neg = torch.rand((M, N), generator=gen, device=dev) < 0.5
    zero = torch.where(neg, torch.full_like(z, -0.0), torch.zeros_like(z))
    x = torch.where(nonzero, z, zero).to(dtype_of(dtype))
    return (x,)
