import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Per-row rates lambda from 1e-3 to 1e3 (outlier mode: 1e-10 to 1e10, where a draw's
    float32 value still has its full resolution)."""
    m = shape["M"]
    decades = 10.0 if mode == "outlier" else 3.0
    e = torch.rand((m,), generator=gen, device=gen.device, dtype=torch.float64)
    rate = (10 ** (e * 2 * decades - decades)).to(getattr(torch, dtype))
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (rate, shape["N"], seed)
