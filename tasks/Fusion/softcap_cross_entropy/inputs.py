import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    # logits of std 12 against a cap of 30: tanh bends most of them (an uncapped or a clamped
    # cross-entropy is far off); outliers at ~1e3 saturate at +-30
    logits = maybe_outliers(normal((N, C), dtype, gen, std=12.0), gen, mode, scale=1e2)
    target = integers((N,), 0, C, gen)
    ignored = uniform((N,), "float32", gen) < 0.2
    ignored[0] = False  # at least one counted row
    target = torch.where(ignored, torch.full_like(target, -100), target)
    if mode == "outlier" and N >= 2:
        target[-1] = -100  # the last row ignored
        target[0] = 0  # the first and the last class
        target[1 % N] = C - 1
    return (logits, target, 30.0)
