import torch

from kgb.tasks.inputs import maybe_outliers, normal


def _cuts(T: int, count: int, gen: torch.Generator) -> torch.Tensor:
    # `count` distinct sorted cut points in 1..T-1.
    return (torch.randperm(T - 1, generator=gen, device=gen.device)[:count] + 1).sort().values


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, B, M, N = shape["T"], shape["B"], shape["M"], shape["N"]
    # y scaled by (T / B)^-1/2 so sums over an average segment stay O(1); outliers amplified
    # 1e2 (not the default 1e3) so a product of two stays inside float16.
    x = maybe_outliers(normal((T, M), dtype, gen), gen, mode, scale=1e2)
    y = maybe_outliers(normal((T, N), dtype, gen, std=(T / B) ** -0.5), gen, mode, scale=1e2)
    zero = torch.zeros(1, dtype=torch.int64, device=gen.device)
    end = torch.full((1,), T, dtype=torch.int64, device=gen.device)
    if mode == "outlier" and B >= 3:
        # Segments 0 and B - 1 empty.
        offsets = torch.cat([zero, zero, _cuts(T, B - 3, gen), end, end])
    elif mode == "outlier":
        offsets = torch.cat([zero] + [end] * B)  # the last segment empty
    else:
        offsets = torch.cat([zero, _cuts(T, B - 1, gen), end])
    return (x, y, offsets)
