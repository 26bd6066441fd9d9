import torch
import torch.nn.functional as F

FP8 = torch.float8_e5m2
FP8_MAX = 57344.0
EPS = 1e-10
GROUP = 128


def _group_scales(x):
    """Each group's max |x| in x's dtype (exact), then the float32 scale."""
    M, K = x.shape
    G = (K + GROUP - 1) // GROUP
    padded = F.pad(x.abs(), (0, G * GROUP - K))  # zeros do not change a maximum of |x|
    return padded.reshape(M, G, GROUP).amax(dim=-1).float().clamp(min=EPS) / FP8_MAX


def reference(x):
    xf = x.float()
    scale = _group_scales(xf)
    per_element = scale.repeat_interleave(GROUP, dim=1)[:, :x.shape[1]]
    return ((xf / per_element).clamp(-FP8_MAX, FP8_MAX).to(FP8), scale)


def baseline(x):
    scale = _group_scales(x)
    per_element = scale.repeat_interleave(GROUP, dim=1)[:, :x.shape[1]]
    return ((x / per_element).clamp(-FP8_MAX, FP8_MAX).to(FP8), scale)


def quotient(x):
    # the value q rounds, exactly (float64): where it is the midpoint of two codes, either one is
    # an honest code (kgb/judge/ties.py); the scale is not rounded codes
    xd = x.double()
    M, K = x.shape
    G = (K + GROUP - 1) // GROUP
    amax = F.pad(xd.abs(), (0, G * GROUP - K)).reshape(M, G, GROUP).amax(dim=-1)
    return (xd * FP8_MAX / amax.clamp(min=EPS).repeat_interleave(GROUP, dim=1)[:, :K], None)
