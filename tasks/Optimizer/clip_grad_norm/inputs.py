import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    n = shape["M"] * shape["N"]
    # a norm of about 0.5 (left alone) or 3 (clipped), chosen per case
    clipped = int(torch.randint(0, 2, (1,), generator=gen, device=gen.device).item())
    std = (3.0 if clipped else 0.5) / math.sqrt(n)
    g = normal((shape["M"], shape["N"]), "float32", gen, std=std)
    # the output slot for the norm: a value no norm takes, so a kernel must write it
    total_norm = torch.full((1,), -1.0, dtype=torch.float32, device=gen.device)
    return (maybe_outliers(g, gen, mode).to(getattr(torch, dtype)), total_norm)
