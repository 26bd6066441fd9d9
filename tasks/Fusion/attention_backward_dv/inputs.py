import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = normal((B, H, S, D), dtype, gen)
    grad_out = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        q[:, :, -1] = 0  # a zero query: its probabilities are uniform, 1/S each
    return (q, k, v, grad_out, D ** -0.5)
