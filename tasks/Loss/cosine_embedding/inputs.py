import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, D = shape["N"], shape["D"]
    dev = gen.device
    x1 = maybe_outliers(normal((N, D), dtype, gen), gen, mode)
    noise = normal((N, D), dtype, gen)
    # correlated pairs: cosines spread over (-1, 1), so both branches of the loss are active
    w = torch.rand((N, 1), generator=gen, device=dev) * 2.0 - 1.0
    x2 = (w * x1.float() + (1.0 - w.abs()) * noise.float()).to(x1.dtype)
    y = torch.where(torch.rand((N,), generator=gen, device=dev) < 0.5, 1, -1)
    if mode == "outlier" and N >= 4:
        x2[0] = x1[0]      # identical vectors, similar label: loss 1 - cos ~ 0
        y[0] = 1
        x2[1] = -x1[1]     # opposite vectors, similar label: loss ~ 2
        y[1] = 1
        x2[2] = x1[2]      # identical vectors, dissimilar label: loss 1 - margin
        y[2] = -1
    u = torch.rand((1,), generator=gen, device=dev).item()
    margin = round(0.5 * u, 3)
    return (x1, x2, y, margin)
