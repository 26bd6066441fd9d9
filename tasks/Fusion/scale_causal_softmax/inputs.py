import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    BH, S = shape["BH"], shape["S"]
    head_dim = [64, 80, 128][int(integers((1,), 0, 3, gen).item())]
    scale = head_dim ** -0.5
    scores = maybe_outliers(normal((BH, S, S), dtype, gen, std=2.0 * head_dim ** 0.5), gen, mode)
    if mode == "outlier":
        # huge values above the diagonal: a kernel that lets them in is far off
        scores = torch.where(torch.ones(S, S, dtype=torch.bool, device=gen.device).triu(1),
                             torch.full_like(scores, 3e4), scores)
        scores[0, -1, :] = 1.0  # an all-equal visible row: uniform probabilities
    return (scores, scale)
