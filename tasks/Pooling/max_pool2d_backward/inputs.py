import torch
import torch.nn.functional as F

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    x = normal((N, C, H, W), dtype, gen)
    if mode == "outlier":
        # a coarse grid: many ties, and large values that win several overlapping windows
        x = maybe_outliers(torch.round(x.float()).to(x.dtype), gen, mode)
    _, indices = F.max_pool2d(x.float(), kernel_size=3, stride=2, padding=1, return_indices=True)
    OH, OW = indices.shape[2], indices.shape[3]
    grad_out = maybe_outliers(normal((N, C, OH, OW), dtype, gen), gen, mode)
    return (x, grad_out, indices.contiguous())
