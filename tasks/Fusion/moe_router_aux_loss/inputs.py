import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, E, K = shape["T"], shape["E"], shape["K"]
    logits = normal((T, E), dtype, gen, std=2.0)
    logits[:, 0] += 1.0  # an over-used expert: the loss is above its balanced value K
    if mode == "outlier":
        logits = maybe_outliers(logits, gen, mode, scale=20.0)  # saturated routers
        # ties: some rows on a coarse grid, one all-equal row
        coarse = torch.round(logits.float())
        rows = torch.rand((T, 1), generator=gen, device=gen.device) < 0.3
        logits = torch.where(rows, coarse.to(logits.dtype), logits)
        if T >= 2:
            logits[1] = 0.5
    return (logits, K)
