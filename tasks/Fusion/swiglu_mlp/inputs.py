import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, DM, F = shape["M"], shape["DM"], shape["F"]
    x = maybe_outliers(normal((M, DM), dtype, gen), gen, mode, scale=1e1)
    w_gate = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_up = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_down = normal((DM, F), dtype, gen, std=F ** -0.5)
    if mode == "outlier":
        x[0] = 0  # a zero token: y = 0
    return (x, w_gate, w_up, w_down)
