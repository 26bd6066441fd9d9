import torch

from kgb.tasks.inputs import normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """theta [N, 2, 3]: a random rotation-scale-shear near the identity plus a translation
    (spatial-transformer-like); outlier mode: some matrices scaled up 100x (zooming far out)."""
    n = shape["N"]
    theta = torch.eye(2, 3, device=gen.device).expand(n, 2, 3) \
        + 0.5 * normal((n, 2, 3), "float32", gen)
    if mode == "outlier":
        big = torch.rand((n, 1, 1), generator=gen, device=gen.device) < 0.5
        theta = torch.where(big, 100 * theta, theta)
    return (theta.to(getattr(torch, dtype)), shape["H"], shape["W"])
