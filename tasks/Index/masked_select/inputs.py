import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, mean=1.0), gen, mode)
    mask = torch.rand((M, N), generator=gen, device=gen.device) < 0.7
    if M >= 3:
        mask[0] = False
        mask[2] = True
    if mode == "outlier":
        # long runs: whole rows on or off
        rows = torch.rand((M, 1), generator=gen, device=gen.device)
        mask = torch.where(rows < 0.2, False, torch.where(rows > 0.6, True, mask))
    return (x, mask)
