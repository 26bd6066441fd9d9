import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    # q std 4: scores ~ N(0, 16), several beyond a cap of 10..20 on every row
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=4.0), gen, mode, scale=1e2)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e2)
    cap = round(10.0 + 10.0 * torch.rand((1,), generator=gen, device=gen.device).item(), 2)
    if mode == "outlier":
        q[:, :, -1] = 0
    return (q, k, v, D ** -0.5, cap)
