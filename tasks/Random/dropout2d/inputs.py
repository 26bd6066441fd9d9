import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """x [B, C, L]; a quarter of the channels repeat another quarter's values (at random
    channels): check() asks whether equal channels got independent keep decisions."""
    B, C, L = shape["B"], shape["C"], shape["L"]
    x = normal((B * C, L), dtype, gen)
    n = B * C
    perm = torch.randperm(n, generator=gen, device=gen.device)
    h = n // 4
    x[perm[:h]] = x[perm[h:2 * h]]
    x = maybe_outliers(x.reshape(B, C, L), gen, mode)
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    p = round(0.1 + 0.4 * u, 3)  # drop probability in [0.1, 0.5]
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (x, p, seed)
