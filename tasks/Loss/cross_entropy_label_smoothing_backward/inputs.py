import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    logits = maybe_outliers(normal((N, C), dtype, gen, std=2.0), gen, mode)
    target = integers((N,), 0, C, gen)
    if mode == "outlier" and N >= 3:
        target[0] = 0
        target[1] = C - 1
        logits[2, target[2]] = 1e3  # a confident right prediction
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    smoothing = round(0.05 + 0.25 * u, 3)
    # a loss-scale-like factor ~N / 64, so that gradients are ~p / 64 whatever N
    v = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (v * (N / 64.0)).float()
    return (logits, target, smoothing, grad_out)
