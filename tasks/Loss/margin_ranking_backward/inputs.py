import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    x1 = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    x2 = normal((M, N), dtype, gen)
    y = torch.where(torch.rand((M, N), generator=gen, device=dev) < 0.5, 1.0, -1.0)
    margin = int(torch.randint(0, 9, (1,), generator=gen, device=dev).item()) / 8.0
    # exact boundary t == 0 at about 5% of the positions: x2 on a 1/8 grid, x1 = x2 + y * margin
    x2g = torch.round(x2.float() * 8.0) / 8.0
    tie = torch.rand((M, N), generator=gen, device=dev) < 0.05
    x2 = torch.where(tie, x2g, x2.float()).to(x1.dtype)
    x1 = torch.where(tie, x2g + y * margin, x1.float()).to(x1.dtype)
    # a loss-scale-like factor ~M * N / 64, so that gradients are O(1 / 64)
    u = 0.5 + 1.5 * torch.rand((), generator=gen, device=dev)
    grad_out = (u * (M * N / 64.0)).float()
    return (x1, x2, y.to(x1.dtype), margin, grad_out)
