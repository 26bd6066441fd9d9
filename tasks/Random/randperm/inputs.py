import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Per-row lengths L_i in [1, N] (variable-length rows; row 0 always full length N).
    Outlier mode: a quarter of the rows of length 1 or 2, the rest full length."""
    m, n = shape["M"], shape["N"]
    lengths = torch.randint(1, n + 1, (m,), generator=gen, device=gen.device)
    if mode == "outlier":
        short = torch.randint(1, min(n, 2) + 1, (m,), generator=gen, device=gen.device)
        r = torch.rand((m,), generator=gen, device=gen.device)
        lengths = torch.where(r < 0.25, short, torch.full_like(lengths, n))
    lengths[0] = n
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (lengths.to(torch.int64), n, seed)
