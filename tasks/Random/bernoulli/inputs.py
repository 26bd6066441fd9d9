import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Probabilities on the grid k / 16 (exact in every float type, 0 and 1 included), so many
    positions share a value: check() asks whether equal probabilities got independent draws.
    Outlier mode: most probabilities at 0 or 1 exactly, the rest 1/256 from them."""
    dims = (shape["M"], shape["N"])
    k = torch.randint(0, 17, dims, generator=gen, device=gen.device)
    probs = k.double() / 16
    if mode == "outlier":
        edge = torch.rand(dims, generator=gen, device=gen.device) < 0.8
        near = torch.where(probs < 0.5, 1 / 256, 1 - 1 / 256)
        probs = torch.where(edge, probs.round(), torch.full_like(probs, 1.0) * near)
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (probs.to(getattr(torch, dtype)), seed)
