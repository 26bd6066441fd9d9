import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def _fp8_weight(shape, gen):
    # e4m3 codes of spread ~64 (a per-tensor scale maps the weight's amax near 448)
    w = torch.randn(shape, generator=gen, device=gen.device, dtype=torch.float32) * 64.0
    return w.clamp(-448.0, 448.0).to(torch.float8_e4m3fn)


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, F = shape["T"], shape["DM"], shape["F"]
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    w13 = _fp8_weight((2 * F, DM), gen)
    w2 = _fp8_weight((DM, F), gen)
    # per-tensor scales that keep g, u and y ~ N(0, 1): dequantized weights of std ~K^-1/2
    w13_scale = (uniform((1,), "float32", gen, 0.5, 1.5) / (64.0 * DM ** 0.5))[0]
    w2_scale = (uniform((1,), "float32", gen, 0.5, 1.5) * 2.0 / (64.0 * F ** 0.5))[0]
    if mode == "outlier":
        x[0] = 0  # an all-zero token: codes 0, y = 0
        if T >= 2:
            x[1, 0] = x.float().abs().max().to(x.dtype) * 20  # one outlier sets the tensor scale
    return (x, w13, w13_scale, w2, w2_scale)
