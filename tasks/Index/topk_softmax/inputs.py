import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, E, K = shape["T"], shape["E"], shape["K"]
    gating = normal((T, E), dtype, gen, std=2.0)
    if mode == "outlier":
        gating = maybe_outliers(gating, gen, mode, scale=20.0)  # saturated routers
        # ties: some rows on a coarse grid, one all-equal row
        coarse = torch.round(gating.float())
        rows = torch.rand((T, 1), generator=gen, device=gen.device) < 0.3
        gating = torch.where(rows, coarse.to(gating.dtype), gating)
        if T >= 2:
            gating[1] = float(integers((1,), -3, 4, gen)[0])
    renormalize = bool(integers((1,), 0, 2, gen)[0])
    return (gating, K, renormalize)
