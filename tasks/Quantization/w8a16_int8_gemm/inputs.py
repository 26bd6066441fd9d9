import math

import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode)
    w = integers((N, K), -127, 128, gen, dtype=torch.int32).to(torch.int8)
    # per-channel scales that make out ~ N(0, 1): codes ~ U(-127, 127) have sd ~73
    scale = uniform((N,), "float32", gen, low=0.5, high=1.5) / (73.0 * math.sqrt(K))
    if mode == "outlier":
        # edge cases: a channel of all -128 codes (the int8 minimum), a zero-scale channel
        w[N - 1] = -128
        scale[0] = 0.0
    return (x, w, scale.to(x.dtype))
