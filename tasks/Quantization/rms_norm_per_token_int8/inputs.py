import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    weight = uniform((N,), dtype, gen, low=0.5, high=1.5)
    if mode == "outlier" and M >= 2:
        # edge case from the spec: an all-zero token (rms 0: r = 1 / sqrt(eps), scale 1e-10 / 127)
        row = int(integers((1,), 0, M, gen).item())
        x[row] = 0
    return (x, weight, 1e-6)
