import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    inp = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    target = normal((M, N), dtype, gen, std=0.5, mean=0.25)
    # exact ties (sign 0) at about 5% of the positions
    tie = torch.rand((M, N), generator=gen, device=gen.device) < 0.05
    target = torch.where(tie, inp, target)

    # a loss-scale-like factor ~M * N / 64, so that gradients are O(1 / 64)
    u = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (u * (M * N / 64.0)).float()
    return (inp, target, grad_out)
