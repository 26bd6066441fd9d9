import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier" and M >= 4:
        # Ties: a constant row (answer 0); a row whose maximum appears at N // 3 and at the
        # last column (answer N // 3, possibly in an earlier block); an all-negative row whose
        # maximum is its last element; a row whose maximum appears in the first and last column.
        x[0] = 1.5
        x[1, N // 3] = 2e4
        x[1, N - 1] = 2e4
        x[2] = (-x[2].float().abs() - 10.0).to(x.dtype)
        x[2, N - 1] = -1.0
        x[3, 0] = 3e4
        x[3, N - 1] = 3e4
    return (x,)
