import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # std 2 covers the curved region around 0 and both saturated tails; outlier mode adds a
    # few values in the thousands (erf saturates to +-1 exactly).
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    b = normal((N,), dtype, gen)
    return (x, b)
