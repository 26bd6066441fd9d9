import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    p = normal(dims, dtype, gen)
    g = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    exp_avg = normal(dims, dtype, gen, std=0.1)
    # >= 0, on both sides of beta2 * exp_inf vs |g| + eps so both arms of the max occur
    exp_inf = uniform(dims, dtype, gen, low=0.0, high=2.0)
    step = int(torch.randint(1, 2001, (1,), generator=gen, device=gen.device).item())
    return (p, g, exp_avg, exp_inf, step)
