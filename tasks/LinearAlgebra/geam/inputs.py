import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def _scalar(gen: torch.Generator) -> float:
    # A Python float with |v| in [0.5, 2] and a random sign, rounded to 1/64.
    v = round(float(uniform((1,), "float32", gen, 0.5, 2.0)[0]) * 64) / 64
    return v if float(uniform((1,), "float32", gen)[0]) < 0.5 else -v


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    a = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    b = maybe_outliers(normal((N, M), dtype, gen), gen, mode)
    alpha, beta = _scalar(gen), _scalar(gen)
    return (a, b, alpha, beta)
