import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # A random overall scale in [e^-3, e^3], so the norm of a long vector is not a predictable
    # constant (it concentrates around scale * sqrt(M N)).
    scale = float(torch.exp(uniform((1,), "float32", gen, -3.0, 3.0))[0])
    x = normal((M, N), "float32", gen, std=scale)
    if mode == "outlier":
        # Range edge cases, by the parity of M * N: huge values (squares overflow float32) or
        # tiny ones (squares underflow). float16 cannot hold those; there the values are
        # ~1e3 (squares overflow float16 itself) or ~1e-4 (squares underflow float16).
        huge = (M * N) % 2 == 0
        if dtype == "float16":
            x = x * (1e3 if huge else 1e-4) / scale
        else:
            x = x * (1e25 if huge else 1e-25)
        x = maybe_outliers(x.to(getattr(torch, dtype)), gen, mode, scale=10.0)
        x[0] = 0  # an all-zero row
        return (x,)
    return (x.to(getattr(torch, dtype)),)
