import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    # Outlier mode: a few logits of magnitude ~1e3 (exp overflows float32 beyond ~88), which
    # breaks any logsumexp that does not subtract the row maximum.
    logits = maybe_outliers(normal((N, C), dtype, gen, std=2.0), gen, mode, scale=1e3)
    target = integers((N,), 0, C, gen)
    return (logits, target)
