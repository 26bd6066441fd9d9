import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e2)
    # the standard ALiBi geometric slopes 2^(-8 h / H), h = 1..H, scaled by a random factor
    # in [0.5, 2] so that a kernel cannot hard-code them
    h = torch.arange(1, H + 1, device=gen.device, dtype=torch.float32)
    factor = 0.5 + 1.5 * torch.rand((1,), generator=gen, device=gen.device)
    slopes = (2.0 ** (-8.0 * h / H)) * factor
    if mode == "outlier":
        q[:, :, -1] = 0  # a zero query: the distribution is the bias alone
    return (q, k, v, slopes, D ** -0.5)
