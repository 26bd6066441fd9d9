import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    logits = torch.randn((M, N), generator=gen, device=dev) * 2.0
    prob = torch.sigmoid(logits)
    hard = (torch.rand((M, N), generator=gen, device=dev) < prob).float()
    soft = torch.rand((M, N), generator=gen, device=dev)
    use_soft = torch.rand((M, N), generator=gen, device=dev) < 0.2
    target = torch.where(use_soft, soft, hard)
    if mode == "outlier":
        # Edge cases: certain predictions, right (no loss) and wrong (log clamped at -100).
        certain = torch.rand((M, N), generator=gen, device=dev) < 0.01
        flip = torch.rand((M, N), generator=gen, device=dev) < 0.5
        value = torch.where(flip, 1.0 - hard, hard)
        prob = torch.where(certain, value, prob)
        target = torch.where(certain, hard, target)
    return (prob.to(dtype_of(dtype)), target.to(dtype_of(dtype)))
