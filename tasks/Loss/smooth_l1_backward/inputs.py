import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    inp = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    target = normal((M, N), dtype, gen, std=0.5, mean=0.25)
    if mode == "outlier":
        exact = torch.rand((M, N), generator=gen, device=dev) < 0.05
        target = torch.where(exact, inp, target)  # d = 0 exactly: zero gradient
    u = torch.rand((1,), generator=gen, device=dev).item()
    beta = round(0.1 + 1.9 * u, 3)
    # a loss-scale-like factor ~M * N / 64, so that gradients are ~1 / 64
    v = 0.5 + 1.5 * torch.rand((), generator=gen, device=dev)
    grad_out = (v * (M * N / 64.0)).float()
    return (inp, target, beta, grad_out)
