import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K = shape["M"], shape["K"]
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode)
    if mode == "outlier":
        # edge cases: an all-zero block (scale byte 0), a block whose maximum is an exact power
        # of two (x / scale = 256, no saturation) next to one just below the next power (values
        # in [448, 512) saturate to 448)
        B = K // 32
        b = integers((3,), 0, B, gen).tolist()
        x[0, 32 * b[0]:32 * b[0] + 32] = 0
        x[M - 1, 32 * b[1]] = 4.0
        x[M - 1, 32 * b[1] + 1:32 * b[1] + 32] = x[M - 1, 32 * b[1] + 1:32 * b[1] + 32].clamp(-3, 3)
        x[M // 2, 32 * b[2]] = -7.96875
    return (x,)
