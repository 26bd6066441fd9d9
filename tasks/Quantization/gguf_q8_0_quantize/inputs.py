import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K = shape["M"], shape["K"]
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode)
    if mode == "outlier":
        # edge cases: an all-zero block (d = 0, id = 0), a block whose d is a float16 subnormal
        B = K // 32
        b = integers((2,), 0, B, gen).tolist()
        x[0, 32 * b[0]:32 * b[0] + 32] = 0
        x[M - 1, 32 * b[1]:32 * b[1] + 32] *= 1e-4
    return (x,)
