import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Per-row bounds [low, high): widths from 1e-3 to 1e3 (outlier mode: 1e-20 to 1e20), lows
    of the order of the width on either side of 0, so a kernel that mixes up rows or scales
    badly shows while float32 still resolves every row finely."""
    m = shape["M"]
    decades = 20.0 if mode == "outlier" else 3.0
    e = torch.rand((m,), generator=gen, device=gen.device, dtype=torch.float64)
    width = 10 ** (e * 2 * decades - decades)
    low = width * torch.randn((m,), generator=gen, device=gen.device, dtype=torch.float64)
    bounds = torch.stack([low, low + width], dim=1).to(getattr(torch, dtype))
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (bounds, shape["N"], seed)
