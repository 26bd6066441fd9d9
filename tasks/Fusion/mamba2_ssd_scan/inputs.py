import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, L, H, P, G, N = (shape[s] for s in ("B", "L", "H", "P", "G", "N"))
    x = maybe_outliers(normal((B, L, H, P), dtype, gen), gen, mode, scale=1e1)
    dt = normal((B, L, H), dtype, gen, std=0.5)
    # Mamba-2's init: A = -exp(A_log), A_log uniform in log(1..16); dt_bias = softplus^-1(dt),
    # dt in [1e-3, 1e-1]; D = 1
    A = -torch.exp(uniform((H,), "float32", gen, 0.0, math.log(16.0)))
    Bm = normal((B, L, G, N), dtype, gen)
    Cm = normal((B, L, G, N), dtype, gen)
    D = uniform((H,), "float32", gen, 0.5, 1.5)
    dt0 = torch.exp(uniform((H,), "float32", gen, math.log(1e-3), math.log(1e-1)))
    dt_bias = dt0 + torch.log(-torch.expm1(-dt0))
    if mode == "outlier":
        dt[:, L // 2, 0] = 30.0  # head 0 forgets its state half way (exp(dt * A) ~ 0)
        Bm[:, 0] = 0  # the first step writes nothing into any state
    return (x, dt, A, Bm, Cm, D, dt_bias)
