import torch

from kgb.tasks.inputs import dtype_of, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, M, N = shape["B"], shape["M"], shape["N"]
    a = maybe_outliers(normal((B, M, N), dtype, gen), gen, mode, scale=1e2)
    v = normal((B, M), dtype, gen)
    tau = 2.0 / (v.float() ** 2).sum(dim=1)            # orthogonal reflectors
    if mode == "outlier":
        tau[0] = 0.0                                     # the identity
    return (a, v, tau.to(dtype_of(dtype)))
