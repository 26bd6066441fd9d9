import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, F = shape["T"], shape["DM"], shape["F"]
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    pre_norm_w = normal((DM,), dtype, gen, std=0.3)
    w_gate = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_up = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_down = normal((DM, F), dtype, gen, std=F ** -0.5)
    post_norm_w = normal((DM,), dtype, gen, std=0.3)
    if mode == "outlier":
        x[0] *= 1e2  # a row of large values: the norm statistics in float32
    return (x, pre_norm_w, w_gate, w_up, w_down, post_norm_w)
