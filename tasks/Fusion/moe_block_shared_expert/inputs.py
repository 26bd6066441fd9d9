import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, DM, F, FS, E, K = (shape[s] for s in ("T", "DM", "F", "FS", "E", "K"))
    x = maybe_outliers(normal((T, DM), dtype, gen), gen, mode, scale=1e1)
    logits = normal((T, E), dtype, gen, std=2.0)
    logits[:, 0] += 3.0  # a popular expert: a group of several row tiles
    if E >= 5:
        logits[:, E - 1] = -30.0  # an expert no token chooses
    w13 = normal((E, 2 * F, DM), dtype, gen, std=DM ** -0.5)
    w2 = normal((E, DM, F), dtype, gen, std=F ** -0.5)
    shared_w13 = normal((2 * FS, DM), dtype, gen, std=DM ** -0.5)
    shared_w2 = normal((DM, FS), dtype, gen, std=FS ** -0.5)
    shared_gate = normal((1, DM), dtype, gen, std=DM ** -0.5)
    if mode == "outlier":
        logits[0] = 1.5  # all equal: experts 0 .. top_k - 1, equal weights
        if T >= 2:
            logits[1, 1:3] = logits[1].max() + 1  # a tie at the top: expert 1 first
        if T >= 3:
            x[2] = 0  # a zero token: y = 0
    return (x, logits, w13, w2, shared_w13, shared_w2, shared_gate, K, shape["R"] == 2)
