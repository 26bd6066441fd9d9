import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, D = shape["M"], shape["D"]
    x1 = maybe_outliers(normal((M, D), dtype, gen), gen, mode)
    noise = normal((M, D), dtype, gen)
    w = torch.rand((M, 1), generator=gen, device=gen.device) * 2.0 - 1.0
    x2 = (w * x1.float() + (1.0 - w.abs()) * noise.float()).to(x1.dtype)
    if mode == "outlier" and M >= 2:
        x2[0] = x1[0]     # identical: cos = 1, gradients ~0
        x2[1] = -x1[1]    # opposite: cos = -1
    grad_out = maybe_outliers(normal((M,), dtype, gen), gen, mode, scale=1e2)
    return (x1, x2, grad_out)
