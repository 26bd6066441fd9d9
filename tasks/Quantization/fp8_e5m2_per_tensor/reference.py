import torch

FP8 = torch.float8_e5m2
FP8_MAX = 57344.0
EPS = 1e-10


def reference(x):
    xf = x.float()
    scale = xf.abs().amax().clamp(min=EPS).reshape(1) / FP8_MAX
    return ((xf / scale).clamp(-FP8_MAX, FP8_MAX).to(FP8), scale)


def baseline(x):
    scale = x.abs().amax().float().clamp(min=EPS).reshape(1) / FP8_MAX
    return ((x / scale).clamp(-FP8_MAX, FP8_MAX).to(FP8), scale)


def quotient(x):
    # the value q rounds, exactly (float64): where it is the midpoint of two codes, either one is
    # an honest code (kgb/judge/ties.py); the scale is not rounded codes
    xd = x.double()
    return (xd * FP8_MAX / xd.abs().amax().clamp(min=EPS), None)
