import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Per-row bounds [low, high): range sizes log-uniform from 2 to 2**31 (a quarter of the rows
    above 2**24, where 24 random bits cannot reach every integer), lows anywhere in +-2**40, and
    one row of exactly 2**31 (there a float32 uniform times the range leaves v - low a multiple
    of 4 nearly always: the residue test sees it). Outlier mode: also a range of 1."""
    m = shape["M"]
    e = torch.rand((m,), generator=gen, device=gen.device, dtype=torch.float64)
    size = torch.exp2(1 + 30 * e).floor().to(torch.int64)
    low = torch.randint(-2**40, 2**40, (m,), generator=gen, device=gen.device)
    size[m - 1] = 2**31
    if mode == "outlier" and m >= 2:
        size[0] = 1
    bounds = torch.stack([low, low + size], dim=1)
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (bounds, shape["N"], seed)
