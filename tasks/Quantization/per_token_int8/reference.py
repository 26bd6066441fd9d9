import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    x = maybe_outliers(normal((shape["M"], shape["N"]), dtype, gen), gen, mode)
    if mode == "outlier" and shape["M"] >= 2:
        # edge case from the spec: an all-zero token has scale 0 and q 0
        row = int(torch.randint(0, shape["M"], (1,), generator=gen, device=gen.device).item())
        x[row] = 0
    return (x,)


def reference(x):
    xf = x.float()
    scale = xf.abs().amax(dim=-1, keepdim=True) / 127.0
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round(xf / safe).clamp(-127, 127)
    q = torch.where(scale > 0, q, torch.zeros_like(q))
    return (q.to(torch.int8), scale)
