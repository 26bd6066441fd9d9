import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, D = shape["N"], shape["D"]
    # after scaling, dist(anchor, positive) ~ 3.6 and dist(anchor, negative) ~ 4, so most
    # triplets are active (loss ~0.6, no catastrophic cancellation in the mean); the outlier
    # negatives (far away) give inactive triplets
    s = 1.0 / math.sqrt(D)
    anchor = normal((N, D), dtype, gen)
    positive = (anchor.float() + normal((N, D), "float32", gen, std=0.9)).to(anchor.dtype)
    negative = (anchor.float() + normal((N, D), "float32", gen, std=1.0)).to(anchor.dtype)
    anchor = (anchor.float() * s * 4).to(anchor.dtype)
    positive = (positive.float() * s * 4).to(anchor.dtype)
    negative = (negative.float() * s * 4).to(anchor.dtype)
    if mode == "outlier":
        negative = maybe_outliers(negative, gen, mode, scale=100.0)
        if N >= 2:
            positive[0] = anchor[0]  # edge case: distance sqrt(D) * eps
    return (anchor, positive, negative)
