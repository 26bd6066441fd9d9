import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, DK, DV = shape["B"], shape["H"], shape["S"], shape["DK"], shape["DV"]
    q = maybe_outliers(normal((B, H, S, DK), dtype, gen), gen, mode, scale=1e1)
    k = maybe_outliers(normal((B, H, S, DK), dtype, gen), gen, mode, scale=1e1)
    v = maybe_outliers(normal((B, H, S, DV), dtype, gen), gen, mode, scale=1e1)
    if mode == "outlier":
        q[:, :, -1] = 0  # a zero query: o = 0 there
        k[:, 0, 0] = 0  # a zero key: contributes nothing to any state
    return (q, k, v, DK ** -0.5)
