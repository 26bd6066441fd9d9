import torch

from kgb.tasks.inputs import integers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, M, N = shape["B"], shape["M"], shape["N"]
    bounds = normal((B,), dtype, gen, std=2.0)
    if mode == "outlier":
        # runs of repeated boundaries
        bounds = torch.round(bounds.float() * 2).to(bounds.dtype) / 2
    bounds = torch.sort(bounds).values.contiguous()
    values = normal((M, N), dtype, gen, std=2.5)
    # a fifth of the values are exact copies of boundaries
    pick = bounds[integers((M, N), 0, B, gen)]
    copy = torch.rand((M, N), generator=gen, device=gen.device) < 0.2
    values = torch.where(copy, pick, values)
    if mode == "outlier":
        pos = torch.rand((M, N), generator=gen, device=gen.device)
        values = torch.where(pos < 0.02, bounds[0], values)
        values = torch.where(pos > 0.98, bounds[-1], values)
        values = torch.where((pos > 0.5) & (pos < 0.52), bounds[0] - 100, values)
        values = torch.where((pos > 0.6) & (pos < 0.62), bounds[-1] + 100, values)
    return (bounds, values.contiguous())
