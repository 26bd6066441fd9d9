import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, DI, N, L = shape["B"], shape["DI"], shape["N"], shape["L"]
    u = maybe_outliers(normal((B, DI, L), dtype, gen), gen, mode, scale=1e1)
    delta = normal((B, DI, L), dtype, gen, std=0.5)
    # Mamba's init: A = -exp(A_log), A_log = log(1..N) (S4D-real); dt in [1e-3, 1e-1] through
    # delta_bias = softplus^-1(dt); D = 1
    A = -torch.arange(1, N + 1, device=gen.device, dtype=torch.float32).repeat(DI, 1)
    A = A * uniform((DI, 1), "float32", gen, 0.5, 1.5)
    Bm = normal((B, N, L), dtype, gen)
    Cm = normal((B, N, L), dtype, gen)
    D = uniform((DI,), "float32", gen, 0.5, 1.5)
    z = maybe_outliers(normal((B, DI, L), dtype, gen), gen, mode, scale=1e1)
    dt = torch.exp(uniform((DI,), "float32", gen, math.log(1e-3), math.log(1e-1)))
    delta_bias = dt + torch.log(-torch.expm1(-dt))
    if mode == "outlier":
        delta[:, 0] = 30.0  # softplus(30 + bias) = its input: a full reset of channel 0's state
        z[:, -1, 0] = 0  # silu(0) = 0: a zero output
    return (u, delta, A, Bm, Cm, D, z, delta_bias)
