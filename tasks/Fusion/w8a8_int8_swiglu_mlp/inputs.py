import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, F = shape["T"], shape["DM"], shape["F"]
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    w13 = integers((2 * F, DM), -127, 128, gen, dtype=torch.int32).to(torch.int8)
    w2 = integers((DM, F), -127, 128, gen, dtype=torch.int32).to(torch.int8)
    # per-channel scales that keep g, u and y ~ N(0, 1): |w| ~ 64, |xq| ~ 40 at |x| ~ 1
    w13_scale = uniform((2 * F,), "float32", gen, low=0.5, high=1.5) / (73.0 * DM ** 0.5) * 2.0
    w2_scale = uniform((DM,), "float32", gen, low=0.5, high=1.5) / (73.0 * F ** 0.5) * 2.0
    if mode == "outlier":
        x[0] = 0  # an all-zero token: scale 0, codes 0, y = 0
        if T >= 2:
            x[1, 0] = x[1].float().abs().max().to(x.dtype) * 50  # one outlier feature
    return (x, w13, w13_scale, w2, w2_scale)
