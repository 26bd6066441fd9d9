import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = maybe_outliers(normal((shape["M"], shape["N"]), dtype, gen), gen, mode)
    if mode == "outlier" and shape["M"] >= 2:
        # edge case from the spec: an all-zero token takes the epsilon scale and q 0
        row = int(torch.randint(0, shape["M"], (1,), generator=gen, device=gen.device).item())
        x[row] = 0
    return (x,)
