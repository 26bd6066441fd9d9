import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, DM, F = shape["M"], shape["DM"], shape["F"]
    # the residual stream: large (std 4), so the RMSNorm's scale matters
    x = maybe_outliers(normal((M, DM), dtype, gen, std=4.0), gen, mode, scale=1e1)
    norm_weight = normal((DM,), dtype, gen, std=0.3, mean=1.0)
    w_gate_up = normal((2 * F, DM), dtype, gen, std=DM ** -0.5)
    w_down = normal((DM, F), dtype, gen, std=F ** -0.5)
    if mode == "outlier":
        x[0] = 0  # a zero token: normed to 0 (eps keeps it finite), y = 0
    return (x, norm_weight, w_gate_up, w_down, 1e-5)
