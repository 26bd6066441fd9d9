import torch

from kgb.tasks.inputs import maybe_outliers, normal


def with_duplicates(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """A copy of x where a quarter of the elements repeat the values of another quarter, at
    random positions: check() asks whether equal values got independent draws (a draw keyed
    on the value, not the position, gives both copies the same one)."""
    flat = x.clone().reshape(-1)
    n = flat.numel()
    perm = torch.randperm(n, generator=gen, device=gen.device)
    h = n // 4
    flat[perm[:h]] = flat[perm[h:2 * h]]
    return flat.reshape(x.shape)


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = normal((shape["M"], shape["N"]), dtype, gen)
    x = maybe_outliers(with_duplicates(x, gen), gen, mode)
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    p = round(0.1 + 0.4 * u, 3)  # drop probability in [0.1, 0.5]
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (x, p, seed)
