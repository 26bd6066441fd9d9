import math

import torch

from kgb.tasks.inputs import dtype_of, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    GK, GN = (K + 127) // 128, (N + 127) // 128
    # fp8 values as a quantizer leaves them (up to +-448), scales that make out ~ N(0, 1)
    a = normal((M, K), "float32", gen, std=100.0).clamp(-448, 448).to(torch.float8_e4m3fn)
    b = normal((N, K), "float32", gen, std=100.0).clamp(-448, 448).to(torch.float8_e4m3fn)
    a_scale = uniform((M, GK), "float32", gen, low=0.005, high=0.015)
    b_scale = uniform((GN, GK), "float32", gen, low=0.5, high=1.5) / (100.0 * math.sqrt(K))
    if mode == "outlier":
        # edge cases: one K block of a row scaled up by 1e3, one weight block zeroed
        a_scale[0, GK - 1] *= 1000.0
        b_scale[GN - 1, 0] = 0.0
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (a, a_scale, b, b_scale, probe)
