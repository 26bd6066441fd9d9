import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, K = shape["N"], shape["K"]
    w = maybe_outliers(normal((N, K), dtype, gen, std=0.02), gen, mode)
    if mode == "outlier":
        # edge cases from the spec: an all-zero block (the epsilon scale) and the last,
        # possibly partial, block scaled up by 1e3
        w[:min(N, 128), :min(K, 128)] = 0
        w[((N - 1) // 128) * 128:, ((K - 1) // 128) * 128:] *= 1000
    return (w,)
