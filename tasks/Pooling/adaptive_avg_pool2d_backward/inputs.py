import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, OH, OW = (shape[k] for k in ("N", "C", "H", "W", "OH", "OW"))
    x = normal((N, C, H, W), dtype, gen)
    grad_out = maybe_outliers(normal((N, C, OH, OW), dtype, gen), gen, mode)
    return (x, grad_out)
