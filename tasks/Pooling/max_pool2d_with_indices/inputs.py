import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = normal((shape["N"], shape["C"], shape["H"], shape["W"]), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # ties inside windows (and -0.0 next to +0.0): a coarse grid on half of the planes
        coarse = torch.round(x.float()).to(x.dtype)
        planes = torch.rand((shape["N"], shape["C"], 1, 1), generator=gen, device=gen.device)
        x = torch.where(planes < 0.5, coarse, x)
    return (x,)
