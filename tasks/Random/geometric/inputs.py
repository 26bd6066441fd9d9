import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Per-row success probabilities, log-uniform from 1e-3 to 0.9 (means from 1.1 to 1000).
    Outlier mode: p = 1 (always 1) and p = 1e-6 (draws in the millions)."""
    m = shape["M"]
    e = torch.rand((m,), generator=gen, device=gen.device, dtype=torch.float64)
    p = (10 ** (-3 + e * 2.954)).float()
    if mode == "outlier":
        p[0] = 1.0
        p[m - 1] = 1e-6
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (p, shape["N"], seed)
