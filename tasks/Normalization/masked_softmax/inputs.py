import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    # keep about 70% of the positions
    mask = torch.rand((M, N), generator=gen, device=gen.device) < 0.7
    # masked positions hold garbage that must never be used: large values
    x = torch.where(mask, x, torch.full_like(x, 3e3))
    if mode == "outlier" and M >= 3:
        mask[0] = False          # a fully masked row: all-zero output
        mask[1] = False          # a row with a single kept entry (its last position): 1 there
        mask[1, N - 1] = True
        mask[2] = True           # a row with nothing masked
    return (x, mask)
