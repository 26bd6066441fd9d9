import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Non-negative weights exp(2 z), a quarter of them exactly 0 (never to be sampled), one
    random category per row kept positive. Outlier mode: a few weights 1e6 times larger (rows
    dominated by one category) and some 1e-6 times smaller."""
    m, v = shape["M"], shape["V"]
    w = torch.exp(2 * torch.randn((m, v), generator=gen, device=gen.device))
    w = torch.where(torch.rand((m, v), generator=gen, device=gen.device) < 0.25, 0.0, w)
    if mode == "outlier":
        r = torch.rand((m, v), generator=gen, device=gen.device)
        w = torch.where(r < 0.002, w * 1e6, torch.where(r > 0.9, w * 1e-6, w))
    keep = torch.randint(0, v, (m, 1), generator=gen, device=gen.device)
    w = w.scatter(1, keep, 1.0 + w.gather(1, keep))
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (w.to(getattr(torch, dtype)), shape["S"], seed)
