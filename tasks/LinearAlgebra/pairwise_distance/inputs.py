import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, D = shape["M"], shape["D"]
    x1 = maybe_outliers(normal((M, D), dtype, gen), gen, mode)
    # near pairs: the difference is small against the vectors (anchor / positive)
    x2 = (x1.float() + 0.1 * normal((M, D), "float32", gen)).to(x1.dtype)
    if mode == "outlier" and M >= 2:
        x2[0] = x1[0]          # identical rows: eps * sqrt(D)
        x2[1] = x1[1]
        x2[1, D // 2] += 1.0   # one element differs: ~1
    return (x1, x2)
