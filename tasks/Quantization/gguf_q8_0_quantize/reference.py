import torch


def _round_half_away(v):
    """C's roundf: to nearest, ties away from zero (no floor(v + 0.5): 0.49999997 stays 0)."""
    a = v.abs()
    r = a.floor()
    r = r + ((a - r) >= 0.5).to(r.dtype)
    return torch.where(v < 0, -r, r)


def reference(x):
    M, K = x.shape
    xf = x.float().reshape(M, K // 32, 32)
    d = xf.abs().amax(dim=-1, keepdim=True) / 127.0
    inv = torch.where(d != 0, 1.0 / d, torch.zeros_like(d))
    q = _round_half_away(xf * inv).clamp(-127, 127)
    return (q.reshape(M, K).to(torch.int8), d.reshape(M, K // 32).to(torch.float16))


baseline = reference  # what a PyTorch user writes: the same float32 steps


def quotient(x):
    # the value qs rounds, exactly (float64): where it is a .5 tie, either neighbour is an
    # honest code (kgb/judge/ties.py); d is not rounded codes
    M, K = x.shape
    xd = x.double().reshape(M, K // 32, 32)
    amax = xd.abs().amax(dim=-1, keepdim=True)
    return (torch.where(amax > 0, xd * 127.0 / amax, torch.zeros_like(xd)).reshape(M, K), None)
