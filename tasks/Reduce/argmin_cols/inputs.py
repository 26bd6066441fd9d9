import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier" and N >= 4:
        # Ties: a constant column (answer 0); a column whose minimum appears at M // 3 and in
        # the last row (answer M // 3); an all-positive column whose minimum is its last
        # element; a column whose minimum appears in the first and the last row (answer 0).
        x[:, 0] = -0.5
        x[M // 3, 1] = -2e4
        x[M - 1, 1] = -2e4
        x[:, 2] = (x[:, 2].float().abs() + 10.0).to(x.dtype)
        x[M - 1, 2] = 1.0
        x[0, 3] = -3e4
        x[M - 1, 3] = -3e4
    return (x,)
