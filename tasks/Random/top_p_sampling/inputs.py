import torch

_MARGIN_TOKEN = 0.02  # the token top_p cuts through has at least this probability


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """LLM-like logits (2 z, eight tokens per row boosted by 3 to 8, a quarter -inf, one token
    per row finite), per-row temperatures in [0.5, 2], and per-row top_p values placed so that
    no rounding decides the nucleus: top_p lies in the middle of the probability of the token
    it cuts through (the last of its ties), which is at least 0.02 (half the rows: the last
    such token), so every partial sum of the sorted probabilities is at least 0.005 away from
    it; rows with no such token, and a tenth
    of the rows, have top_p = 1. Outlier mode: logits shifted to the thousands and rows with
    all-equal logits."""
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
    # the law in float64 from the values the kernel reads (logits rounded, T in float32)
    probs = torch.softmax(logits.double() / temperature.double()[:, None], dim=1)
    p_sorted = probs.sort(dim=1, descending=True).values
    cum = p_sorted.cumsum(1)
    last_of_ties = torch.ones_like(p_sorted, dtype=torch.bool)
    last_of_ties[:, :-1] = p_sorted[:, 1:] != p_sorted[:, :-1]
    ok = (p_sorted >= _MARGIN_TOKEN) & last_of_ties
    # half the rows cut through their last such token (the widest nucleus: more to test)
    deepest = torch.rand((m, 1), generator=gen, device=dev) < 0.5
    order = torch.arange(v, device=dev).expand(m, v)
    key = torch.where(deepest, order.double(), torch.rand((m, v), generator=gen, device=dev,
                                                          dtype=torch.float64))
    pick = key.masked_fill(~ok, -1.0).argmax(1)
    cut = (cum.gather(1, pick[:, None]) - p_sorted.gather(1, pick[:, None]) / 2).squeeze(1)
    full = ~ok.any(1) | (torch.rand((m,), generator=gen, device=dev) < 0.1)
    top_p = torch.where(full, 1.0, cut).to(torch.float32)
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=dev).item())
    return (logits, temperature, top_p, shape["S"], seed)
