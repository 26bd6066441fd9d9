import torch

from kgb.tasks.inputs import dtype_of, maybe_outliers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    # detection-like: mostly negatives predicted low, ~5% positives
    target = (torch.rand((M, N), generator=gen, device=dev) < 0.05).float()
    logits = torch.randn((M, N), generator=gen, device=dev) * 2.0 - 2.0 + 3.0 * target
    logits = maybe_outliers(logits.to(dtype_of(dtype)), gen, mode, scale=100.0)
    return (logits, target.to(dtype_of(dtype)))
