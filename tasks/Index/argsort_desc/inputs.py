import torch

from kgb.tasks.inputs import integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    # a small range per row (many ties) scaled over the whole int32 range
    small = integers((M, N), -20, 21, gen)
    scale = integers((M, 1), 1, 2**26, gen)
    x = (small * scale).clamp(-2**31, 2**31 - 1)
    if mode == "outlier":
        pos = torch.rand((M, N), generator=gen, device=gen.device)
        x = torch.where(pos < 0.05, -2**31, x)
        x = torch.where(pos > 0.95, 2**31 - 1, x)
        if M >= 2:
            x[1] = integers((1,), -5, 6, gen)  # an all-equal row
    return (x.to(torch.int32),)
