import torch

from kgb.tasks.inputs import maybe_outliers, normal


def plant(x: torch.Tensor, values, gen: torch.Generator, every: int = 61) -> torch.Tensor:
    """A copy of x with the special `values` written at distinct, evenly spaced positions (a
    random start, about one position per `every` elements, each value at least once when x is
    big enough). Distinct positions keep the write deterministic on CUDA."""
    flat = x.reshape(-1).clone()
    n = flat.numel()
    count = min(n, max(len(values), n // every))
    step = max(1, n // count)
    start = int(torch.randint(0, step, (1,), generator=gen, device=gen.device).item())
    pos = start + torch.arange(count, device=flat.device) * step
    vals = torch.tensor(values, dtype=torch.float32, device=flat.device)
    flat[pos] = vals.repeat(count // len(values) + 1)[:count].to(flat.dtype)
    return flat.reshape(x.shape)


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, 2 * N), dtype, gen, std=2.0), gen, mode)
    if mode == "outlier":
        x = plant(x, [0.0, -0.0, 50.0, -50.0, 3000.0, -3000.0], gen)
    grad_out = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    return (x, grad_out)
