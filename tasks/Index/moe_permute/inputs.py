import torch

from kgb.tasks.inputs import integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, K, E = shape["T"], shape["K"], shape["E"]
    # skewed routing: squared uniforms favour low expert ids
    u = torch.rand((T, K), generator=gen, device=gen.device)
    ids = (u * u * E).long().clamp(0, E - 1)
    n = T * K
    flat = ids.reshape(-1)
    pos = torch.arange(n, device=gen.device)
    first = integers((1,), 0, n, gen)
    last = (first + 1 + integers((1,), 0, max(n - 1, 1), gen)) % n
    flat = torch.where(pos == first, 0, flat)
    flat = torch.where(pos == last, E - 1, flat)
    if mode == "outlier":
        hot = integers((1,), 0, E, gen)  # a hot expert takes 40% of the pairs
        take = (torch.rand((n,), generator=gen, device=gen.device) < 0.4)
        take = take & (pos != first) & (pos != last)
        flat = torch.where(take, hot, flat)
    return (flat.reshape(T, K).to(torch.int32).contiguous(), E)
