import torch

MAX_NORM, EPS = 1.0, 1e-6


def reference(g, total_norm):
    """torch.nn.utils.clip_grad_norm_ on one tensor, IN PLACE: the norm in float64 (the exact
    norm rounded once to float32) written into total_norm, g scaled in float32 and written back
    (kgb calls it on clones and reads them back: kgb.judge.inplace)."""
    total = torch.linalg.vector_norm(g.double(), 2.0).reshape(1).float()
    coef = (MAX_NORM / (total + EPS)).clamp(max=1.0)
    g.copy_(g.float() * coef)
    total_norm.copy_(total)


def baseline(g, total_norm):
    """What PyTorch runs: the norm accumulated in float32 (half gradients upcast, as its
    foreach norm does), then the same scaling, in place."""
    gf = g.float()
    total = torch.linalg.vector_norm(gf, 2.0).reshape(1)
    coef = (MAX_NORM / (total + EPS)).clamp(max=1.0)
    g.copy_(gf * coef)
    total_norm.copy_(total)
