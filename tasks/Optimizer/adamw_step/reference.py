import math

LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 1e-3, 0.9, 0.999, 1e-8, 0.01


def reference(p, g, m, v, step):
    """torch.optim.AdamW's single-tensor update, computed in float32 and written IN PLACE into
    p, m and v (kgb calls it on clones and reads them back: kgb.judge.inplace)."""
    pf, gf = p.float().mul(1 - LR * WEIGHT_DECAY), g.float()
    mf = m.float().lerp(gf, 1 - BETA1)
    vf = v.float().mul(BETA2).addcmul_(gf, gf, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    step_size = LR / bias_correction1
    denom = (vf.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    p.copy_(pf.addcdiv_(mf, denom, value=-step_size))
    m.copy_(mf)
    v.copy_(vf)


def baseline(p, g, m, v, step):
    """torch.optim.AdamW's single-tensor update in the inputs' dtype, in place, as
    torch.optim.AdamW(foreach=False) runs it."""
    p.mul_(1 - LR * WEIGHT_DECAY)
    m.lerp_(g, 1 - BETA1)
    v.mul_(BETA2).addcmul_(g, g, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    step_size = LR / bias_correction1
    denom = (v.sqrt() / math.sqrt(bias_correction2)).add_(EPS)
    p.addcdiv_(m, denom, value=-step_size)
