import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S = shape["B"], shape["H"], shape["S"]
    x = maybe_outliers(normal((B, H, S), dtype, gen), gen, mode)
    # padding masks: a random valid length per batch row, masked beyond it, plus random holes
    lengths = integers((B, 1), 0, S + 1, gen)
    pos = torch.arange(S, device=gen.device)
    mask = (pos >= lengths) | (torch.rand((B, S), generator=gen, device=gen.device) < 0.1)
    if B >= 2:
        mask[0] = True  # an entirely masked row
        mask[1] = False  # an entirely unmasked row
    if mode == "outlier":
        value = float("-inf")
    else:
        value = -float(integers((1,), 1, 64, gen)[0]) / 4.0  # exact in every case dtype
    return (x, mask, value)
