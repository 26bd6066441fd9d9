import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, 2 * H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, 2 * H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, 2 * D), dtype, gen), gen, mode, scale=1e2)
    weight = normal((2 * D,), dtype, gen, std=0.3, mean=1.0)
    lambda_init = 0.8 - 0.6 * math.exp(-0.3 * (shape["L"] - 1))
    lam = lambda_init + 0.05  # exp(lq1.lk1) - exp(lq2.lk2) + lambda_init, the dots small
    if mode == "outlier":
        q[:, 1, -1] = 0  # the second map of head 0, last query: uniform over its keys
    return (q, k, v, weight, lam, lambda_init, 1e-5, D ** -0.5)
