import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Logits 2 z with a quarter of them -inf (masked tokens, never to be sampled), one random
    token per row left finite. Outlier mode: a few logits 30 higher (rows dominated by one
    token) and logits scaled up to the thousands (a kernel must not overflow exp)."""
    m, v = shape["M"], shape["V"]
    logits = 2 * torch.randn((m, v), generator=gen, device=gen.device)
    if mode == "outlier":
        r = torch.rand((m, v), generator=gen, device=gen.device)
        logits = torch.where(r < 0.002, logits + 30, logits) + 1000
    masked = torch.rand((m, v), generator=gen, device=gen.device) < 0.25
    keep = torch.randint(0, v, (m, 1), generator=gen, device=gen.device)
    masked = masked.scatter(1, keep, False)
    logits = logits.masked_fill(masked, float("-inf")).to(getattr(torch, dtype))
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (logits, shape["S"], seed)
