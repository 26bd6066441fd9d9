import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Per-row (mean, std): stds from 1e-3 to 1e3 (outlier mode: 1e-20 to 1e20), means of the
    order of the std on either side of 0."""
    m = shape["M"]
    decades = 20.0 if mode == "outlier" else 3.0
    e = torch.rand((m,), generator=gen, device=gen.device, dtype=torch.float64)
    std = 10 ** (e * 2 * decades - decades)
    mean = std * torch.randn((m,), generator=gen, device=gen.device, dtype=torch.float64)
    params = torch.stack([mean, std], dim=1).to(getattr(torch, dtype))
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (params, shape["N"], seed)
