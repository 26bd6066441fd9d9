import math

import torch


LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 1e-3, 0.9, 0.999, 1e-8, 0.01


def reference(p, g, m, v, step):
    """torch.optim.AdamW's single-tensor update, in float32, out of place."""
    pf, gf = p.float().clone(), g.float()
    mf, vf = m.float().clone(), v.float().clone()
    pf.mul_(1 - LR * WEIGHT_DECAY)
    mf.lerp_(gf, 1 - BETA1)
    vf.mul_(BETA2).addcmul_(gf, gf, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    step_size = LR / bias_correction1
    denom = (vf.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    pf.addcdiv_(mf, denom, value=-step_size)
    return (pf.to(p.dtype), mf.to(m.dtype), vf.to(v.dtype))


def baseline(p, g, m, v, step):
    """torch.optim.AdamW's single-tensor update in the inputs' dtype, out of place."""
    p, m, v = p.clone(), m.clone(), v.clone()
    p.mul_(1 - LR * WEIGHT_DECAY)
    m.lerp_(g, 1 - BETA1)
    v.mul_(BETA2).addcmul_(g, g, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    step_size = LR / bias_correction1
    denom = (v.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    p.addcdiv_(m, denom, value=-step_size)
    return (p, m, v)
