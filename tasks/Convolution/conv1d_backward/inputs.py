import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, L, K, KS = (shape[s] for s in ("N", "C", "L", "K", "KS"))
    # grad_out std 1, w std (K KS)^-1/2 (dx sums K KS terms), x std (N L)^-1/2 (dw sums N L
    # terms): dx and dw are O(1). Outliers amplified 1e2: a product of two stays in float16.
    x = maybe_outliers(normal((N, C, L), dtype, gen, std=(N * L) ** -0.5), gen, mode, scale=1e2)
    w = maybe_outliers(normal((K, C, KS), dtype, gen, std=(K * KS) ** -0.5), gen, mode,
                       scale=1e2)
    grad_out = maybe_outliers(normal((N, K, L), dtype, gen), gen, mode, scale=1e2)
    if mode == "outlier":
        grad_out[:, 0] = 0  # an output channel without gradient: db[0] = 0, dw[0] = 0
    return (x, w, grad_out)
