import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """x [N, C, H, W] of AlexNet-like magnitude (std 5 to 20, so the normalizer is far from 1:
    an answer that returns x fails), and alpha, beta, k as Python floats around AlexNet's;
    outlier mode: amplified elements (squares past float16's range) and an all-zero plane."""
    n, c, h, w = shape["N"], shape["C"], shape["H"], shape["W"]
    std = float(uniform((1,), "float32", gen, 5.0, 20.0)[0])
    x = maybe_outliers(normal((n, c, h, w), dtype, gen, std=std), gen, mode)
    if mode == "outlier":
        x[0, 0] = 0
    alpha = round(float(uniform((1,), "float32", gen, 0.005, 0.02)[0]) * 4096) / 4096
    beta = 0.75
    k = round(float(uniform((1,), "float32", gen, 1.0, 2.0)[0]) * 64) / 64
    return (x, alpha, beta, k)
