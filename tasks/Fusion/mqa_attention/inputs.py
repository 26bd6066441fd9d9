import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, SQ, SK, D = shape["B"], shape["H"], shape["SQ"], shape["SK"], shape["D"]
    q = maybe_outliers(normal((B, H, SQ, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, SK, D), dtype, gen)
    v = maybe_outliers(normal((B, SK, D), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        q[:, 0, 0] = 0  # a zero query: uniform attention
        k[:, -1] = k[:, 0]  # tied first and last keys
    return (q, k, v, D ** -0.5)
