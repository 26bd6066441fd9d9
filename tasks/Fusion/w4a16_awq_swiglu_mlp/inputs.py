import math

import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal, uniform

SHIFTS = (0, 4, 1, 5, 2, 6, 3, 7)  # nibble index of column j of every 8 (AWQ's order)


def _pack(codes: torch.Tensor) -> torch.Tensor:
    """[R, N] codes 0..15 -> [R, N / 8] int32 in AWQ's interleaved order."""
    R, N = codes.shape
    groups = codes.reshape(R, N // 8, 8).to(torch.int64)
    packed = torch.zeros((R, N // 8), dtype=torch.int64, device=codes.device)
    for j, shift in enumerate(SHIFTS):
        packed |= groups[:, :, j] << (4 * shift)
    packed = torch.where(packed >= 2 ** 31, packed - 2 ** 32, packed)  # the int32 bit pattern
    return packed.to(torch.int32)


def _awq_weight(K: int, N: int, dtype: str, gen: torch.Generator, mode: str):
    codes = integers((K, N), 0, 16, gen, dtype=torch.int32)
    zeros = integers((K // 128, N), 0, 16, gen, dtype=torch.int32)
    # |code - zero| ~ 6 on average: outputs of unit size for unit inputs
    scales = uniform((K // 128, N), "float32", gen, low=0.5, high=1.5) / (7.0 * math.sqrt(K))
    if mode == "outlier":
        codes[:, N - 1] = 15  # the top nibble set in a whole column: negative int32 words
        zeros[0, 0] = 15
    return _pack(codes), _pack(zeros), scales.to(getattr(torch, dtype))


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, F = shape["T"], shape["DM"], shape["F"]
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)  # finite in float16
    gu = _awq_weight(DM, 2 * F, dtype, gen, mode)
    d = _awq_weight(F, DM, dtype, gen, mode)
    return (x, *gu, *d)
