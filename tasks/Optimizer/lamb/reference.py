import math

import torch

LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 1e-3, 0.9, 0.999, 1e-6, 0.01


def reference(p, g, exp_avg, exp_avg_sq, step):
    """timm's Lamb step on one tensor (no gradient clipping, no trust clip), computed in
    float32 and written IN PLACE into p, exp_avg and exp_avg_sq (kgb calls it on clones and
    reads them back: kgb.judge.inplace)."""
    gf, pf = g.float(), p.float()
    m = exp_avg.float().mul(BETA1).add_(gf, alpha=1 - BETA1)
    v = exp_avg_sq.float().mul(BETA2).addcmul_(gf, gf, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    denom = (v.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    update = (m / bias_correction1).div_(denom).add_(pf, alpha=WEIGHT_DECAY)
    w_norm = torch.linalg.vector_norm(pf)
    u_norm = torch.linalg.vector_norm(update)
    one = torch.ones_like(w_norm)
    trust = torch.where(w_norm > 0, torch.where(u_norm > 0, w_norm / u_norm, one), one)
    p.copy_(pf - LR * trust * update)
    exp_avg.copy_(m)
    exp_avg_sq.copy_(v)


# timm runs LAMB in the parameters' dtype; the float32 update is what apex's FusedLAMB and a
# PyTorch user with mixed precision run, in place like the kernel.
baseline = reference
