import math

LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8


def reference(p, g, exp_avg, exp_avg_sq, step):
    """torch.optim.Adam's single-tensor update (weight_decay=0), computed in float32 and
    written IN PLACE into p, exp_avg and exp_avg_sq (kgb calls it on clones and reads them
    back: kgb.judge.inplace)."""
    gf = g.float()
    m = exp_avg.float().lerp(gf, 1 - BETA1)
    v = exp_avg_sq.float().mul(BETA2).addcmul_(gf, gf, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    step_size = LR / bias_correction1
    denom = (v.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    pf = p.float().addcdiv(m, denom, value=-step_size)
    p.copy_(pf)
    exp_avg.copy_(m)
    exp_avg_sq.copy_(v)


# PyTorch's fused Adam computes half parameters' updates in float32 too (the update in the
# inputs' dtype misses the contract): that is what a PyTorch user runs, in place like the kernel.
baseline = reference
