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
    info = torch.iinfo(dt)

    M, N = shape["M"], shape["N"]
    bits = 8 * dt.itemsize
    a = integers((M, N), info.min, info.max, gen, dt)
    s = integers((M, N), 0, bits, gen, dt)
    if mode == "outlier":
        a = plant_int(a, [0, -1, info.min, info.max, 1, 1 << (bits - 2)], gen)
        s = plant_int(s, [0, bits - 1, 1, bits - 2, 2], gen)
    return (a, s)
