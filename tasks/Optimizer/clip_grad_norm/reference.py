import torch

MAX_NORM, EPS = 1.0, 1e-6


def reference(g):
    """torch.nn.utils.clip_grad_norm_ on one tensor, out of place: the norm in float64 (the
    exact norm rounded once to float32), the scaling in float32."""
    gf = g.float()
    total = torch.linalg.vector_norm(g.double(), 2.0).reshape(1).float()
    coef = (MAX_NORM / (total + EPS)).clamp(max=1.0)
    return ((gf * coef).to(g.dtype), total)


def baseline(g):
    """What PyTorch runs: the norm accumulated in float32 (half gradients upcast, as its
    foreach norm does), then the same scaling."""
    gf = g.float()
    total = torch.linalg.vector_norm(gf, 2.0).reshape(1)
    coef = (MAX_NORM / (total + EPS)).clamp(max=1.0)
    return ((gf * coef).to(g.dtype), total)
