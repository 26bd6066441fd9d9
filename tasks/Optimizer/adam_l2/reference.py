import math

LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 1e-3, 0.9, 0.999, 1e-8, 0.01


def reference(p, g, m, v, step):
    """torch.optim.Adam's single-tensor update with weight_decay, computed in float32 and
    written IN PLACE into p, m and v (kgb calls it on clones and reads them back:
    kgb.judge.inplace)."""
    pf = p.float()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    mf = m.float().lerp(d, 1 - BETA1)
    vf = v.float().mul(BETA2).addcmul_(d, d, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    denom = (vf.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    p.copy_(pf.addcdiv(mf, denom, value=-LR / bias_correction1))
    m.copy_(mf)
    v.copy_(vf)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
