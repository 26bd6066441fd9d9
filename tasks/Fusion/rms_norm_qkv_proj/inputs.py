import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, DM, N = shape["M"], shape["DM"], shape["N"]
    x = maybe_outliers(normal((M, DM), dtype, gen, std=3.0), gen, mode, scale=1e2)
    norm_weight = normal((DM,), dtype, gen, std=0.3, mean=1.0)
    w_qkv = normal((N, DM), dtype, gen, std=DM ** -0.5)
    return (x, norm_weight, w_qkv)
