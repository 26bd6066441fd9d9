import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    # q std 2: scores ~ N(0, 4), attention neither uniform nor one-hot
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        q[:, :, 0] = 0  # a zero query: uniform attention, o = mean of v
        if S >= 3:
            k[:, :, 2] = k[:, :, 1]  # tied keys
    return (q, k, v, D ** -0.5)
