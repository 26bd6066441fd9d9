import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    dev = gen.device
    logits = maybe_outliers(normal((N, C), dtype, gen, std=2.0), gen, mode)
    target = integers((N,), 0, C, gen)
    # about a quarter of the positions are padding; row 0 always counts
    pad = torch.rand((N,), generator=gen, device=dev) < 0.25
    pad[0] = False
    target = torch.where(pad, -100, target)
    if mode == "outlier" and N >= 3:
        target[1] = C - 1
        logits[2, 0] = 1e3  # a confident prediction
        target[2] = 0
    u = torch.rand((1,), generator=gen, device=dev).item()
    z_loss = round(1e-4 + 9e-4 * u, 6)
    # a loss-scale-like factor ~N / 64, so that gradients are ~p / 64 whatever N
    v = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (v * (N / 64.0)).float()
    return (logits, target, z_loss, grad_out)
