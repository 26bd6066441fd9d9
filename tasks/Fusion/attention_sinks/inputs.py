import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, S, D = shape["B"], shape["H"], shape["HKV"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, HKV, S, D), dtype, gen)
    v = maybe_outliers(normal((B, HKV, S, D), dtype, gen), gen, mode, scale=1e2)
    # sinks of the size of typical scores (|s| ~ 3), so they carry a visible share of the mass
    sinks = normal((H,), "float32", gen, std=2.0)
    if mode == "outlier":
        sinks[0] = 40.0  # a sink that takes nearly all the mass: outputs near zero
        sinks[-1] = -40.0  # one that takes none: plain windowed attention
        q[:, -1, -1] = 0
    return (q, k, v, sinks, shape["W"], D ** -0.5)
