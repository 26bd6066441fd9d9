import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, G, K, H, W = shape["N"], shape["G"], shape["K"], shape["H"], shape["W"]
    x = normal((N, G * K, H, W), dtype, gen)
    return (maybe_outliers(x, gen, mode), G)
