import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """x, y [M, N]; a random angle's (c, s) = (cos, sin) as Python floats (c^2 + s^2 = 1), so
    neither output is a copy or a negation of an input."""
    M, N = shape["M"], shape["N"]
    theta = float(uniform((1,), "float32", gen, 0.2, 2 * math.pi - 0.2)[0])
    c, s = math.cos(theta), math.sin(theta)
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    y = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    if mode == "outlier":
        # the first row of y is x's rotated away: c * y - s * x cancels to rounding residue
        x[0] = normal((N,), dtype, gen)
        y[0] = (s / c * x[0].double()).to(y.dtype) if abs(c) > 0.1 else y[0]
    return (x, y, c, s)
