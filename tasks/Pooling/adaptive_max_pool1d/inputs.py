import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """x [N, C, L] normal; outlier mode: amplified elements and ties inside windows (a coarse
    grid, -0.0 next to +0.0, on half of the channels). OUT as a Python int (it may exceed L)."""
    x = normal((shape["N"], shape["C"], shape["L"]), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        coarse = torch.round(x.float()).to(x.dtype)
        rows = torch.rand((shape["N"], shape["C"], 1), generator=gen, device=gen.device)
        x = torch.where(rows < 0.5, coarse, x)
    return (x, shape["OUT"])
