import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, DM, F = shape["M"], shape["DM"], shape["F"]
    x = maybe_outliers(normal((M, DM), dtype, gen), gen, mode, scale=1e1)
    w_gate = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_up = normal((F, DM), dtype, gen, std=DM ** -0.5)
    w_down = normal((DM, F), dtype, gen, std=F ** -0.5)
    grad_out = maybe_outliers(normal((M, DM), dtype, gen), gen, mode, scale=1e1)
    if mode == "outlier":
        grad_out[0] = 0  # no gradient flows into token 0: dx = 0 there
    return (x, w_gate, w_up, w_down, grad_out)
