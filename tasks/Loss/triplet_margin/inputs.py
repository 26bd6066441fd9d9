import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, D = shape["N"], shape["D"]
    # distances of both pairs ~sqrt(2 * D) * s; scale so that the margin 1.0 matters: about
    # half of the triplets are active
    s = 1.0 / math.sqrt(D)
    anchor = normal((N, D), dtype, gen)
    positive = (anchor.float() + normal((N, D), "float32", gen, std=0.75)).to(anchor.dtype)
    negative = (anchor.float() + normal((N, D), "float32", gen, std=1.0)).to(anchor.dtype)
    anchor = (anchor.float() * s * 4).to(anchor.dtype)
    positive = (positive.float() * s * 4).to(anchor.dtype)
    negative = (negative.float() * s * 4).to(anchor.dtype)
    if mode == "outlier":
        negative = maybe_outliers(negative, gen, mode, scale=100.0)
        if N >= 2:
            positive[0] = anchor[0]  # edge case: distance sqrt(D) * eps
    return (anchor, positive, negative)
