import torch

from kgb.tasks.inputs import integers


def plant_int(x: torch.Tensor, values, gen: torch.Generator, every: int = 61) -> torch.Tensor:
    """A copy of the integer tensor x with `values` written at distinct, evenly spaced
    positions (a random start, about one per `every` elements)."""
    flat = x.reshape(-1).clone()
    n = flat.numel()
    count = min(n, max(len(values), n // every))
    step = max(1, n // count)
    start = int(torch.randint(0, step, (1,), generator=gen, device=gen.device).item())
    pos = start + torch.arange(count, device=flat.device) * step
    vals = torch.tensor(values, dtype=flat.dtype, device=flat.device)
    flat[pos] = vals.repeat(count // len(values) + 1)[:count]
    return flat.reshape(x.shape)


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dt = getattr(torch, dtype)
    M, N = shape["M"], shape["N"]
    # a = g * p, b = g * q: common factors g of every size
    if dtype == "int32":
        g = integers((M, N), 1, 2**10, gen, dt)
        lim = 2**19
    else:
        g = integers((M, N), 1, 2**30, gen, dt)
        lim = 2**31
    a = g * integers((M, N), -lim, lim, gen, dt)
    b = g * integers((M, N), -lim, lim, gen, dt)
    if mode == "outlier":
        big = 2**30 - 1 if dtype == "int32" else 2**62 - 1
        a = plant_int(a, [0, 0, -6, 12, 7, 1, -1, big, big, 832040], gen)
        b = plant_int(b, [0, 5, 0, -18, 7, big, -1, big - 1, -big, 514229], gen)
    return (a, b)
