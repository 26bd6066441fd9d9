import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """x1 [P, D], x2 [R, D]: points around a common random offset (so ||a||^2 + ||b||^2 - 2 a.b
    cancels badly, as it does for real embeddings); outlier mode adds near-duplicates (x2's
    first row within 1e-3 of x1's first row: a distance the expansion cannot resolve) and an
    exact duplicate (distance 0)."""
    P, R, D = shape["P"], shape["R"], shape["D"]
    offset = 4 * normal((1, D), "float32", gen)
    scale = float(torch.exp(uniform((1,), "float32", gen, -1.0, 1.0))[0])
    x1 = maybe_outliers((offset + scale * normal((P, D), "float32", gen)).to(getattr(torch, dtype)),
                        gen, mode, scale=10.0)
    x2 = maybe_outliers((offset + scale * normal((R, D), "float32", gen)).to(getattr(torch, dtype)),
                        gen, mode, scale=10.0)
    if mode == "outlier":
        x2[0] = (x1[0].float() + 1e-3 * normal((D,), "float32", gen)).to(x2.dtype)
        if R > 1:
            x2[-1] = x1[-1]
    return (x1, x2)
