import torch

from kgb.tasks.inputs import dtype_of, integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    dev = gen.device
    logits = torch.randn((N, C), generator=gen, device=dev) * 2.0
    if mode == "outlier":
        logits = logits * 100.0  # very confident rows: log-probabilities down to ~-1e3
    log_probs = torch.log_softmax(logits, dim=-1).to(dtype_of(dtype))
    target = integers((N,), 0, C, gen)
    share = 0.5 if mode == "outlier" else 0.1  # share of ignored targets
    ignored = torch.rand((N,), generator=gen, device=dev) < share
    target = torch.where(ignored, torch.full_like(target, -100), target)
    target[0] = C - 1  # at least one target is used (and the last class occurs)
    if mode == "outlier" and N >= 3:
        target[1] = 0
        target[N - 1] = -100
    return (log_probs, target)
