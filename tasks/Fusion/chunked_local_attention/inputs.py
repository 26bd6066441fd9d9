import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, HKV, S, D = shape["B"], shape["H"], shape["HKV"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, HKV, S, D), dtype, gen)
    v = maybe_outliers(normal((B, HKV, S, D), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        q[:, -1, -1] = 0  # a zero query: uniform over its chunk's visible keys
        # a huge key at the end of the first chunk: it must not leak into the next chunk
        k[:, :, min(shape["C"], S) - 1] *= 30
    return (q, k, v, shape["C"], D ** -0.5)
