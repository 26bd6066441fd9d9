import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N = shape["M"], shape["N"]
    dev = gen.device
    logits = torch.randn((M, N), generator=gen, device=dev) * 2.0
    if mode == "outlier":
        logits = logits * 4.0  # confident predictions: p near 0 and 1
    prob = torch.sigmoid(logits)
    hard = (torch.rand((M, N), generator=gen, device=dev) < prob).float()
    soft = torch.rand((M, N), generator=gen, device=dev)
    use_soft = torch.rand((M, N), generator=gen, device=dev) < 0.2
    target = torch.where(use_soft, soft, hard)
    if mode == "outlier":
        # certain right predictions: p exactly 0 or 1 with the matching target
        certain = torch.rand((M, N), generator=gen, device=dev) < 0.01
        prob = torch.where(certain, hard, prob)
        target = torch.where(certain, hard, target)

    # a loss-scale-like factor ~M * N / 64, so that gradients are O(1 / 64)
    u = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (u * (M * N / 64.0)).float()
    return (prob.to(dtype_of(dtype)), target.to(dtype_of(dtype)), grad_out)
