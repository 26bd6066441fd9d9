import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    logits = maybe_outliers(normal((N, C), dtype, gen, std=2.0), gen, mode)
    target = integers((N,), 0, C, gen)
    if mode == "outlier" and N >= 3:
        target[0] = 0
        target[1] = C - 1
        logits[2, target[2]] = 1e3  # a confident right prediction: gradient ~0 on that row
    # a loss-scale-like factor ~N / 64, so that gradients are ~p / 64 whatever N
    u = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (u * (N / 64.0)).float()
    return (logits, target, grad_out)
