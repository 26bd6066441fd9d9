import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, H, HKV, D = shape["T"], shape["H"], shape["HKV"], shape["D"]
    q = maybe_outliers(normal((T, H, D), dtype, gen), gen, mode)
    k = maybe_outliers(normal((T, HKV, D), dtype, gen, std=3.0), gen, mode)
    q_weight = normal((D,), dtype, gen, std=0.5, mean=1.0)
    k_weight = normal((D,), dtype, gen, std=0.5, mean=1.0)
    if mode == "outlier":
        q[0, -1] = 0  # an all-zero head vector
        k[-1, 0] = 0
    return (q, k, q_weight, k_weight)
