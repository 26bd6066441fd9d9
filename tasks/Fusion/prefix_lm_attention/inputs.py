import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, S, D = shape["B"], shape["H"], shape["HKV"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, HKV, S, D), dtype, gen)
    v = maybe_outliers(normal((B, HKV, S, D), dtype, gen), gen, mode, scale=1e2)
    lens = integers((B,), 0, S + 1, gen)
    lens[0] = (2 * S) // 3 + 1  # ends inside a tile, past the first query tile from S = 100 on
    if mode == "outlier":
        lens[-1] = S  # fully bidirectional
        if B >= 3:
            lens[1] = 0  # plain causal
        q[:, -1, 0] = 0  # a zero query: uniform over its visible keys
    return (q, k, v, lens.to(torch.int32), D ** -0.5)
