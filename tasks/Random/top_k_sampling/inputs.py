import torch


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """LLM-like logits: 2 z, eight random tokens per row boosted by 3 to 8 (a few likely
    tokens over a long tail), a quarter of them -inf (masked, never to be sampled), one random
    token per row finite; per-row temperatures in [0.5, 2] and top-k values from 1 to V (some
    rows k = 1, some k = V). Outlier mode: logits shifted to the thousands (a kernel must not
    overflow exp) and rows with all-equal logits (every token tied with the k-th)."""
    m, v = shape["M"], shape["V"]
    dev = gen.device
    logits = 2 * torch.randn((m, v), generator=gen, device=dev)
    boost = torch.randint(0, v, (m, 8), generator=gen, device=dev)
    lift = 3 + 5 * torch.rand((m, 8), generator=gen, device=dev)
    logits = logits.scatter_add(1, boost, lift)
    if mode == "outlier":
        flat = torch.rand((m, 1), generator=gen, device=dev) < 0.25
        logits = torch.where(flat, torch.zeros_like(logits), logits) + 1000
    masked = torch.rand((m, v), generator=gen, device=dev) < 0.25
    keep = torch.randint(0, v, (m, 1), generator=gen, device=dev)
    masked = masked.scatter(1, keep, False)
    logits = logits.masked_fill(masked, float("-inf")).to(getattr(torch, dtype))
    temperature = 0.5 + 1.5 * torch.rand((m,), generator=gen, device=dev)
    top_k = torch.randint(1, min(v, 64) + 1, (m,), generator=gen, device=dev)
    r = torch.rand((m,), generator=gen, device=dev)
    top_k = torch.where(r < 0.1, 1, torch.where(r > 0.9, v, top_k))
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=dev).item())
    return (logits, temperature, top_k.to(torch.int64), shape["S"], seed)
