import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, E, NG, TG, K = shape["T"], shape["E"], shape["NG"], shape["TG"], shape["K"]
    logits = normal((T, E), dtype, gen, std=2.0)
    # one expert per row far above the others: its group is chosen even when the group's other
    # experts are weak (a top-k without the group limit then picks from other groups)
    logits[:, E - 1] += 4.0
    if mode == "outlier":
        logits = maybe_outliers(logits, gen, mode, scale=20.0)
        coarse = torch.round(logits.float())  # ties inside and across groups
        rows = torch.rand((T, 1), generator=gen, device=gen.device) < 0.3
        logits = torch.where(rows, coarse.to(logits.dtype), logits)
        if T >= 2:
            logits[1] = 0.25  # all equal: groups 0.., experts 0.. in order
    renormalize = shape["R"] == 1
    return (logits, NG, TG, K, renormalize, 2.5 if not renormalize else 1.0)
