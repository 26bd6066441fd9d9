import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, K, E, BLK, DM = (shape[s] for s in ("T", "K", "E", "BLK", "DM"))
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode)
    score = uniform((T, E), "float32", gen)
    score[:, 0] = 2.0  # every token: a group of several blocks
    score[:, E - 1] = -1.0  # no token: an expert with no block
    if mode == "outlier":
        score[:, 1] = 1.5  # a second full group
    topk_ids = torch.argsort(score, dim=1, descending=True)[:, :K].to(torch.int32)
    return (x, topk_ids, E, BLK)
