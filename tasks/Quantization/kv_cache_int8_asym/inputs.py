import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, H, D = shape["T"], shape["H"], shape["D"]
    # keys / values with a per-head offset, so min and max are not symmetric about 0
    offset = normal((1, H, 1), "float32", gen).to(getattr(torch, dtype))
    kv = maybe_outliers(normal((T, H, D), dtype, gen) + offset, gen, mode)
    if mode == "outlier":
        # edge cases: a (token, head) row of equal values (max == min: scale 0, codes 0) and an
        # all-zero one
        t = integers((2,), 0, T, gen).tolist()
        kv[t[0], 0] = 0.75
        kv[t[1], H - 1] = 0
    return (kv,)
