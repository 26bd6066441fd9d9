LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 2e-3, 0.9, 0.999, 1e-8, 0.01


def reference(p, g, exp_avg, exp_inf, step):
    """torch.optim.Adamax's single-tensor update (coupled weight decay), computed in float32
    and written IN PLACE into p, exp_avg and exp_inf (kgb calls it on clones and reads them
    back: kgb.judge.inplace)."""
    pf = p.float()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    m = exp_avg.float().lerp(d, 1 - BETA1)
    u = exp_inf.float().mul(BETA2).maximum(d.abs().add(EPS))
    clr = LR / (1 - BETA1 ** step)
    p.copy_(pf.addcdiv(m, u, value=-clr))
    exp_avg.copy_(m)
    exp_inf.copy_(u)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
