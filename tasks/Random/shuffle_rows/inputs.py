import torch

_ONE = {"float32": (0x3F800000, torch.int32), "float16": (0x3C00, torch.int16),
        "bfloat16": (0x3F80, torch.int16)}


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Rows of N distinct values (the N representable numbers from 1.0 up, each row in its own
    random order; outlier mode negates every other one), rows in identical pairs (row 2r + 1 =
    row 2r): check() finds where every element went, and a shuffle keyed on the values gives
    both rows of a pair the same permutation."""
    m, n = shape["M"], shape["N"]
    one, bits = _ONE[dtype]
    values = (one + torch.arange(n, device=gen.device)).to(bits).view(getattr(torch, dtype))
    if mode == "outlier":
        values = torch.where(torch.arange(n, device=gen.device) % 2 == 1, -values, values)
    keys = torch.rand((m, n), generator=gen, device=gen.device)
    keys[1::2] = keys[0:(m // 2) * 2:2]
    x = values[keys.argsort(dim=1)]
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (x, seed)
