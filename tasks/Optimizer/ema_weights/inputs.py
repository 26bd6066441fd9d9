import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    ema = normal(dims, dtype, gen)
    # the weights moved away from their average (a visible update at every decay)
    p = maybe_outliers(normal(dims, dtype, gen, std=2.0), gen, mode)
    # half the cases in warm-up (decay < 0.9999 while step < ~2.15e5), half capped
    step = int(torch.randint(0, 1000000, (1,), generator=gen, device=gen.device).item())
    if int(torch.randint(0, 2, (1,), generator=gen, device=gen.device).item()):
        step = step % 2000
    return (ema, p, step)
