import torch

from kgb.tasks.inputs import maybe_outliers, normal


def _cuts(T: int, count: int, gen: torch.Generator) -> torch.Tensor:
    # `count` distinct sorted cut points in 1..T-1.
    return (torch.randperm(T - 1, generator=gen, device=gen.device)[:count] + 1).sort().values


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, E, K, N = shape["T"], shape["E"], shape["K"], shape["N"]
    # Outliers amplified 1e2 (not the default 1e3): a product of two stays inside float16.
    x = maybe_outliers(normal((T, K), dtype, gen), gen, mode, scale=1e2)
    w = maybe_outliers(normal((E, K, N), dtype, gen, std=K ** -0.5), gen, mode, scale=1e2)
    zero = torch.zeros(1, dtype=torch.int64, device=gen.device)
    end = torch.full((1,), T, dtype=torch.int64, device=gen.device)
    if mode == "outlier" and E >= 3:
        # Groups 0 and E - 1 empty, the others of random sizes.
        offsets = torch.cat([zero, zero, _cuts(T, E - 3, gen), end, end])
    elif mode == "outlier":
        # E <= 2: everything in group 0, the last group empty.
        offsets = torch.cat([zero] + [end] * E)
    else:
        # E non-empty groups of random sizes.
        offsets = torch.cat([zero, _cuts(T, E - 1, gen), end])
    return (x, w, offsets)
