import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = normal((M, N), dtype, gen)
    if mode == "outlier":
        x = maybe_outliers(x, gen, mode)
        # ties: half of the rows rounded to a coarse grid (many equal values, -0.0 and +0.0)
        coarse = torch.round(x.float() * 2) / 2
        rows = torch.rand((M, 1), generator=gen, device=gen.device) < 0.5
        x = torch.where(rows, coarse.to(x.dtype), x)
        if M >= 2:
            x[0] = float(integers((1,), -3, 4, gen)[0])  # an all-equal row
    return (x,)
