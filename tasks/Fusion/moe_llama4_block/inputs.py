import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, F, FS, E = (shape[s] for s in ("T", "DM", "F", "FS", "E"))
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    logits = normal((T, E), dtype, gen, std=2.0)
    logits[:, 0] += 1.5  # a favoured expert: a group of several row tiles
    logits[:, E - 1] = -30.0  # an expert no token chooses
    w13 = normal((E, 2 * F, DM), dtype, gen, std=DM ** -0.5)
    w2 = normal((E, DM, F), dtype, gen, std=F ** -0.5)
    shared_w13 = normal((2 * FS, DM), dtype, gen, std=DM ** -0.5)
    shared_w2 = normal((DM, FS), dtype, gen, std=FS ** -0.5)
    if mode == "outlier":
        logits[0, : E - 1] = 0.5  # all tied: expert 0, score sigmoid(0.5)
        if T >= 2:
            logits[1, 1:3] = logits[1].max() + 1  # a tie at the top: expert 1
        if T >= 3:
            logits[2, 1] = 40.0  # a saturated score: sigmoid = 1
    return (x, logits, w13, w2, shared_w13, shared_w2)
