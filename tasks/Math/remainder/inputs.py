import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def plant_pairs(a: torch.Tensor, b: torch.Tensor, pairs, gen: torch.Generator,
                every: int = 61) -> tuple[torch.Tensor, torch.Tensor]:
    """Copies of a and b (same shape) with the (a, b) value `pairs` written at the same
    distinct, evenly spaced positions (a random start, about one per `every` elements)."""
    fa, fb = a.reshape(-1).clone(), b.reshape(-1).clone()
    n = fa.numel()
    count = min(n, max(len(pairs), n // every))
    step = max(1, n // count)
    start = int(torch.randint(0, step, (1,), generator=gen, device=gen.device).item())
    pos = start + torch.arange(count, device=fa.device) * step
    va = torch.tensor([p[0] for p in pairs], dtype=torch.float32, device=fa.device)
    vb = torch.tensor([p[1] for p in pairs], dtype=torch.float32, device=fa.device)
    reps = count // len(pairs) + 1
    fa[pos] = va.repeat(reps)[:count].to(fa.dtype)
    fb[pos] = vb.repeat(reps)[:count].to(fb.dtype)
    return fa.reshape(a.shape), fb.reshape(b.shape)


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen, std=10.0), gen, mode)
    mag = uniform((M, N), "float32", gen, 0.5, 3.0)
    sign = torch.where(torch.rand((M, N), generator=gen, device=gen.device) < 0.5, -1.0, 1.0)
    y = (mag * sign).to(getattr(torch, dtype))
    if mode == "outlier":
        # exact multiples (remainder 0), both sign combinations, tiny and zero dividends
        pairs = [(6.0, 3.0), (-6.0, 3.0), (7.0, -3.0), (-7.0, 3.0), (-7.0, -3.0), (0.0, 1.5),
                 (-0.0, 1.5), (1e-3, 3.0), (-1e-3, 3.0), (5.5, 0.5), (1000.25, -0.5),
                 (0.9999, 1.0), (-2.0, 2.0)]
        x, y = plant_pairs(x, y, pairs, gen)
    return (x, y)
