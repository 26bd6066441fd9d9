import torch

from kgb.tasks.inputs import dtype_of, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    dev = gen.device
    logits = maybe_outliers(normal((N, C), dtype, gen, std=2.0), gen, mode)
    # mixup-like targets: a few classes carry the mass, most are exactly zero
    t = torch.randn((N, C), generator=gen, device=dev) * 3.0
    keep = torch.rand((N, C), generator=gen, device=dev) < 0.3
    t = t.masked_fill(~keep, float("-inf"))
    t[:, 0] = torch.where(keep.any(dim=-1), t[:, 0], torch.zeros_like(t[:, 0]))
    if mode == "outlier" and N >= 2:
        t[N - 1] = float("-inf")  # edge case: a one-hot target in the last class
        t[N - 1, C - 1] = 0.0
    target = torch.softmax(t, dim=-1).to(dtype_of(dtype))
    # a loss-scale-like factor ~N / 64, so that gradients are ~p / 64 whatever N
    v = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (v * (N / 64.0)).float()
    return (logits, target, grad_out)
