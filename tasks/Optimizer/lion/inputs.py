import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    p = normal(dims, dtype, gen)
    g = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    m = normal(dims, dtype, gen, std=0.5)
    # edge case from the spec: where g = m = 0, sign(c) = 0
    dead = uniform(dims, "float32", gen) < 0.05
    return (p, torch.where(dead, 0.0, g.float()).to(g.dtype),
            torch.where(dead, 0.0, m.float()).to(m.dtype))
