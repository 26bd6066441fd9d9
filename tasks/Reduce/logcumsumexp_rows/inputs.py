import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier" and M >= 2:
        # exp overflows float32 on row 0 and underflows to 0 on the last row without rescaling
        x[0] = (x[0].float() + 100.0).to(x.dtype)
        x[M - 1] = (x[M - 1].float() - 200.0).to(x.dtype)
    return (x,)
