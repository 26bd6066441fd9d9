import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    p = normal(dims, dtype, gen)
    g = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    grad_avg = normal(dims, "float32", gen, std=0.05)
    # square_avg >= grad_avg ** 2 (a mean of squares is at least the square of the mean)
    square_avg = grad_avg * grad_avg + uniform(dims, "float32", gen, low=0.5, high=1.5)
    buf = normal(dims, dtype, gen, std=0.5)
    return (p, g, square_avg.to(p.dtype), grad_avg.to(p.dtype), buf)
