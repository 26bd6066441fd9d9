import math

import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # log|x| ~ N(0, (1.5 / sqrt(N))^2): the log of a row product is ~N(0, 1.5^2), so products
    # stay within ~e^+-9 (inside the float16 range) whatever N is.
    z = torch.randn((M, N), generator=gen, device=gen.device) * (1.5 / math.sqrt(N))
    sign = torch.where(torch.rand((M, N), generator=gen, device=gen.device) < 0.5, -1.0, 1.0)
    x = (sign * torch.exp(z)).to(dtype_of(dtype))
    if mode == "outlier" and M >= 3:
        # Edge cases (amplified elements would overflow the product, so this task's outlier
        # mode is its edge cases): a single exact zero in the last column, an all-ones row and
        # an all-minus-ones row.
        x[0, N - 1] = 0.0
        x[1] = 1.0
        x[2] = -1.0
    return (x,)
