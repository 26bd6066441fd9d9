import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """float32 x with a quarter of its elements repeating another quarter's values (check()
    asks whether equal values were rounded independently) and an eighth already exact in
    bfloat16 (they must come back unchanged)."""
    M, N = shape["M"], shape["N"]
    flat = maybe_outliers(normal((M, N), "float32", gen), gen, mode).reshape(-1)
    n = flat.numel()
    perm = torch.randperm(n, generator=gen, device=gen.device)
    h = n // 4
    flat[perm[:h]] = flat[perm[h:2 * h]]
    e = n // 8
    flat[perm[2 * h:2 * h + e]] = flat[perm[2 * h:2 * h + e]].to(torch.bfloat16).float()
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (flat.reshape(M, N), seed)
