import math

import torch

LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 1e-3, 0.9, 0.999, 1e-8, 0.01


def reference(p, g, m, v, step):
    """torch.optim.Adam's single-tensor update with weight_decay, in float32, out of place."""
    pf, mf, vf = p.float().clone(), m.float().clone(), v.float().clone()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    mf.lerp_(d, 1 - BETA1)
    vf.mul_(BETA2).addcmul_(d, d, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    denom = (vf.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    pf.addcdiv_(mf, denom, value=-LR / bias_correction1)
    return (pf.to(p.dtype), mf.to(m.dtype), vf.to(v.dtype))

# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs.
baseline = reference
