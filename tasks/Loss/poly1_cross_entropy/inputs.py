import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, V = shape["N"], shape["V"]
    dev = gen.device
    logits = maybe_outliers(normal((N, V), dtype, gen, std=2.0), gen, mode)
    target = integers((N,), 0, V, gen)
    ignored = torch.rand((N,), generator=gen, device=dev) < 0.1
    target = torch.where(ignored, torch.full_like(target, -100), target)
    if mode == "outlier" and N >= 4:
        target[0] = -100     # an ignored row
        target[1] = V - 1    # the last class
        target[2] = 0        # the first class
        logits[3, target[3].clamp(min=0)] = 1e3  # a confident, right prediction (ce ~0, p_t 1)
    epsilon = round(-1.0 + 3.0 * torch.rand((1,), generator=gen, device=dev).item(), 3)
    return (logits, target, epsilon)
