import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, M, K, N = shape["B"], shape["M"], shape["K"], shape["N"]
    # a: B matrices at batch stride M * K + gap, the gaps filled with NaN.
    gap = 3 + M  # not a multiple of anything in particular
    vals = maybe_outliers(normal((B, M * K), dtype, gen), gen, mode, scale=1e2)
    pad = torch.full((B, gap), float("nan"), dtype=vals.dtype, device=vals.device)
    a = torch.cat([vals, pad], dim=1)[:, : M * K].unflatten(1, (M, K))
    if mode == "outlier":
        # One matrix shared by every batch entry (batch stride 0).
        one = maybe_outliers(normal((1, K, N), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
        b = one.expand(B, K, N)
    else:
        # Every other matrix of a buffer of 2B (batch stride 2 K N).
        b = normal((2 * B, K, N), dtype, gen, std=K ** -0.5)[::2]
    alpha = round(float(uniform((1,), "float32", gen, 0.5, 2.0)[0]) * 64) / 64
    return (a, b, alpha)
