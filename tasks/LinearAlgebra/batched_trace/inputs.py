import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, M, N = shape["B"], shape["M"], shape["N"]
    k = min(M, N)
    a = normal((B, M, N), dtype, gen, std=k ** -0.5)
    if mode == "outlier":
        # Off-diagonal NaN (must not be read into the trace), amplified diagonal entries,
        # and one all-zero diagonal.
        diag = maybe_outliers(normal((B, k), dtype, gen, std=k ** -0.5), gen, mode, scale=1e2)
        diag[0] = 0
        a = torch.full((B, M, N), float("nan"), dtype=a.dtype, device=a.device)
        a.diagonal(dim1=-2, dim2=-1).copy_(diag)
    return (a,)
