import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, C, H, W, P, E = (shape[s] for s in ("B", "C", "H", "W", "P", "E"))
    N = (H // P) * (W // P)
    x = maybe_outliers(normal((B, C, H, W), dtype, gen), gen, mode, scale=1e1)
    weight = normal((E, C, P, P), dtype, gen, std=(C * P * P) ** -0.5)
    bias = normal((E,), dtype, gen, std=0.5)
    pos = normal((N, E), dtype, gen, std=0.5)
    if mode == "outlier":
        x[0, :, :P, :P] = 0  # an all-zero first patch: bias + pos alone
        if H % P:
            x[:, :, H - 1] = 1e3  # rows past the last full patch: the conv drops them
    return (x, weight, bias, pos)
