import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, DM, F = shape["M"], shape["DM"], shape["F"]
    x = maybe_outliers(normal((M, DM), dtype, gen, std=2.0, mean=0.5), gen, mode, scale=1e2)
    ln_weight = normal((DM,), dtype, gen, std=0.3, mean=1.0)
    ln_bias = normal((DM,), dtype, gen, std=0.3)
    w1 = normal((F, DM), dtype, gen, std=DM ** -0.5)
    b1 = normal((F,), dtype, gen, std=0.5)
    w2 = normal((DM, F), dtype, gen, std=F ** -0.5)
    b2 = normal((DM,), dtype, gen, std=0.5)
    return (x, ln_weight, ln_bias, w1, b1, w2, b2)
