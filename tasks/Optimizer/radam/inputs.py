import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    p = normal(dims, dtype, gen)
    g = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    exp_avg = normal(dims, dtype, gen, std=0.1)
    exp_avg_sq = uniform(dims, dtype, gen, low=0.0, high=0.01)  # >= 0: a running mean of g**2
    # half the cases in steps 1..10: rho_t <= 5 (no rectification) up to step 5, > 5 from 6
    step = int(torch.randint(1, 2001, (1,), generator=gen, device=gen.device).item())
    if int(torch.randint(0, 2, (1,), generator=gen, device=gen.device).item()):
        step = step % 10 + 1
    return (p, g, exp_avg, exp_avg_sq, step)
