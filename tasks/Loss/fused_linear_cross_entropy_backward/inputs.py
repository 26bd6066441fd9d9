import math

import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, H, V = shape["N"], shape["H"], shape["V"]
    h = maybe_outliers(normal((N, H), dtype, gen), gen, mode, scale=10.0)
    # logits of standard deviation ~3 whatever H
    weight = normal((V, H), dtype, gen, std=3.0 / math.sqrt(H))
    target = integers((N,), 0, V, gen)
    if mode == "outlier" and N >= 2:
        target[0] = 0
        target[1] = V - 1
    # a loss-scale-like factor ~N / 64, so that dz is ~p / 64 whatever N
    v = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (v * (N / 64.0)).float()
    return (h, weight, target, grad_out)
