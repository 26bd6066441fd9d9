import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = maybe_outliers(normal((shape["M"], shape["N"]), dtype, gen), gen, mode)
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    p = round(0.1 + 0.4 * u, 3)  # drop probability in [0.1, 0.5]
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (x, p, seed)
