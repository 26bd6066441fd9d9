import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, N = shape["T"], shape["DM"], shape["N"]
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    residual = normal((T, DM), dtype, gen, std=2.0)
    norm_w = normal((DM,), dtype, gen, std=0.2, mean=1.0)
    w = integers((N, DM), -127, 128, gen, dtype=torch.int32).to(torch.int8)
    # per-channel scales that keep out ~ N(0, 1): |w| ~ 64, codes ~ 40 for unit hn
    w_scale = uniform((N,), "float32", gen, low=0.5, high=1.5) / (73.0 * DM ** 0.5) * 2.0
    if mode == "outlier":
        x[0] = 0
        residual[0] = 0  # an all-zero row: scale 0, out 0
        if T >= 2:
            residual[1, -1] = 300.0  # one dominant feature: most codes 0
    return (x, residual, norm_w, w, w_scale)
