import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, M, K, N = shape["B"], shape["M"], shape["K"], shape["N"]
    # a std 1, b std N^-1/2, grad_out std M^-1/2: grad_a (a sum over N) and grad_b (a sum over
    # M) are O(1). Outliers amplified 1e2: a product of two stays inside float16.
    a = maybe_outliers(normal((B, M, K), dtype, gen), gen, mode, scale=1e2)
    b = maybe_outliers(normal((B, K, N), dtype, gen, std=N ** -0.5), gen, mode, scale=1e2)
    grad_out = maybe_outliers(normal((B, M, N), dtype, gen, std=M ** -0.5), gen, mode,
                              scale=1e2)
    return (a, b, grad_out)
