import torch
import torch.nn.functional as F

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, L = shape["N"], shape["C"], shape["L"]
    x = normal((N, C, L), dtype, gen)
    if mode == "outlier":
        # a coarse grid: many ties, and large values that win both windows sharing them
        x = maybe_outliers(torch.round(x.float()).to(x.dtype), gen, mode)
    _, indices = F.max_pool1d(x.float(), kernel_size=3, stride=2, padding=1, return_indices=True)
    grad_out = maybe_outliers(normal((N, C, indices.shape[2]), dtype, gen), gen, mode)
    return (x, grad_out, indices.contiguous())
