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
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    y = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    if mode == "outlier":
        big = 6e4 if dtype == "float16" else 1e30
        huge = 6e4 if dtype == "float16" else 3e38
        pairs = [(0.0, 0.0), (-0.0, 0.0), (3.0, -4.0), (big, big), (-big, 1.0), (1e-30, 1e-30),
                 (huge, huge), (2e38 if dtype != "float16" else 5e4, 1.0)]
        x, y = plant_pairs(x, y, pairs, gen)
    return (x, y)
