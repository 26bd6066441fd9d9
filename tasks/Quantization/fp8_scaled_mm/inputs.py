import math

import torch

from kgb.tasks.inputs import normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    # fp8 values as a per-tensor quantizer leaves them (up to +-448), scales making out ~ N(0, 1)
    a = normal((M, K), "float32", gen, std=100.0).clamp(-448, 448).to(torch.float8_e4m3fn)
    b = normal((N, K), "float32", gen, std=100.0).clamp(-448, 448).to(torch.float8_e4m3fn)
    scale_a = uniform((1,), "float32", gen, low=0.005, high=0.015)
    scale_b = uniform((1,), "float32", gen, low=0.5, high=1.5) / (100.0 * math.sqrt(K))
    bias = normal((N,), dtype, gen)
    if mode == "outlier":
        # edge cases: the e4m3 extremes in a row and a column, a large bias entry
        a[0, :] = 448.0
        b[N - 1, :] = -448.0
        bias[0] = 64.0
    return (a, b, scale_a, scale_b, bias)
