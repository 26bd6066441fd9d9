import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D, W = shape["B"], shape["H"], shape["S"], shape["D"], shape["W"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e1)
    grad_out = normal((B, H, S, D), dtype, gen)
    if mode == "outlier":
        # a huge key just outside the last query's window: it must not reach its gradient
        j = S - 1 - W
        if j >= 0:
            k[:, :, j] = 50.0 * q[:, :, -1].float().sign().to(k.dtype)
        q[:, :, 0] = 0
    return (q, k, v, grad_out, W, D ** -0.5)
