import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    cond = torch.rand((M, N), generator=gen, device=gen.device) < 0.5
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    y = maybe_outliers(normal((N,), dtype, gen), gen, mode)
    if mode == "outlier":
        # whole rows taken from one side
        cond[0] = True
        cond[-1] = False
    return (cond, x, y)
