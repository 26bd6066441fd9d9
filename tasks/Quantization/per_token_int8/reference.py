import torch


def reference(x):
    xf = x.float()
    scale = xf.abs().amax(dim=-1, keepdim=True) / 127.0
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round(xf / safe).clamp(-127, 127)
    q = torch.where(scale > 0, q, torch.zeros_like(q))
    return (q.to(torch.int8), scale)


def baseline(x):
    # the float32 scale is the task's output; x / scale promotes to float32 inside the kernel
    scale = x.abs().amax(dim=-1, keepdim=True).float() / 127.0
    q = torch.round(x / torch.where(scale > 0, scale, 1.0)).clamp_(-127, 127)
    return (q.to(torch.int8), scale)


def quotient(x):
    # the value q rounds, exactly (float64): where it is a .5 tie, either neighbour is an honest
    # code (kgb/judge/ties.py); the scale is not rounded codes
    xd = x.double()
    amax = xd.abs().amax(dim=-1, keepdim=True)
    return (torch.where(amax > 0, xd * 127.0 / amax, torch.zeros_like(xd)), None)
