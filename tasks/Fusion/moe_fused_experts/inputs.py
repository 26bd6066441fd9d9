import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, F, E, K = (shape[s] for s in ("T", "DM", "F", "E", "K"))
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    w13 = normal((E, 2 * F, DM), dtype, gen, std=DM ** -0.5)
    w2 = normal((E, DM, F), dtype, gen, std=F ** -0.5)
    # K distinct experts per token: expert 0 always (one large group), expert E - 1 never
    score = uniform((T, E), "float32", gen)
    score[:, 0] = 2.0
    score[:, E - 1] = -1.0
    topk_ids = torch.argsort(score, dim=1, descending=True)[:, :K].to(torch.int32)
    w = uniform((T, K), "float32", gen, low=0.05, high=1.0)
    topk_weights = w / w.sum(dim=1, keepdim=True)
    if mode == "outlier":
        x[0] = 0  # a zero token: y = 0
    return (x, w13, w2, topk_weights, topk_ids)
