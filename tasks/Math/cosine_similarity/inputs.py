import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, D = shape["M"], shape["D"]
    x1 = maybe_outliers(normal((M, D), dtype, gen), gen, mode)
    noise = normal((M, D), dtype, gen)
    # correlated pairs: cosines spread over (-1, 1)
    w = torch.rand((M, 1), generator=gen, device=gen.device) * 2.0 - 1.0
    x2 = (w * x1.float() + (1.0 - w.abs()) * noise.float()).to(x1.dtype)
    if mode == "outlier" and M >= 4:
        x2[0] = x1[0]     # identical: 1
        x2[1] = -x1[1]    # opposite: -1
        x1[2] = 0         # an all-zero row: 0
        x2[3] = x1[3] * 1e-3   # parallel, very different norms: 1
    return (x1, x2)
