import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    # outliers ~100x (not 1e3x): with the small-variance channel below, 1e3x would overflow
    # float16 in the reference too
    x = normal((N, C, H, W), dtype, gen, std=2.0, mean=0.5)
    x = maybe_outliers(x, gen, mode, scale=100.0)
    running_mean = normal((C,), "float32", gen, std=0.5, mean=0.5)
    running_var = uniform((C,), "float32", gen, low=0.5, high=4.0)
    if mode == "outlier":
        running_var[0] = 1e-2  # edge case: a small variance (scale ~10)
    weight = normal((C,), "float32", gen, std=0.5, mean=1.0)
    bias = normal((C,), "float32", gen, std=0.5)
    return (x, running_mean, running_var, weight, bias)
