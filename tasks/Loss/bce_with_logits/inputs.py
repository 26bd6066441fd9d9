import torch

from kgb.tasks.inputs import dtype_of, maybe_outliers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    logits = torch.randn((M, N), generator=gen, device=dev) * 2.0
    hard = (torch.rand((M, N), generator=gen, device=dev) < torch.sigmoid(logits)).float()
    soft = torch.rand((M, N), generator=gen, device=dev)
    use_soft = torch.rand((M, N), generator=gen, device=dev) < 0.2
    target = torch.where(use_soft, soft, hard)
    # outlier mode: logits of magnitude ~1e3 (exp overflows in a naive formula)
    logits = maybe_outliers(logits.to(dtype_of(dtype)), gen, mode)
    return (logits, target.to(dtype_of(dtype)))
