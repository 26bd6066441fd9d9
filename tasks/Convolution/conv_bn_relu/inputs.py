import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, K = shape["N"], shape["C"], shape["H"], shape["W"], shape["K"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    x = maybe_outliers(normal((N, C, H, W), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((K, C, 3, 3), dtype, gen, std=(9 * C) ** -0.5), gen, mode,
                       scale=1e2)
    gamma = normal((K,), dtype, gen, mean=1.0, std=0.2)
    beta = normal((K,), dtype, gen, std=0.5)
    running_mean = normal((K,), dtype, gen, std=0.5)
    # running_var in [0.25, 4): BN rescales by up to 2x either way
    running_var = torch.exp(normal((K,), "float32", gen, std=0.5).clamp(-1.38, 1.38)).to(x.dtype)
    return (x, w, gamma, beta, running_mean, running_var)
    return (x, w)
