LR, BETA1, BETA2, EPS, MOMENTUM_DECAY = 2e-3, 0.9, 0.999, 1e-8, 4e-3


def mu_at(t: int) -> float:
    return BETA1 * (1.0 - 0.5 * 0.96 ** (t * MOMENTUM_DECAY))


def mu_product_at(step: int) -> float:
    """torch.optim.NAdam's mu_product state after `step` updates: mu_1 * ... * mu_step."""
    product = 1.0
    for t in range(1, step + 1):
        product *= mu_at(t)
    return product


def reference(p, g, exp_avg, exp_avg_sq, step):
    """torch.optim.NAdam's single-tensor update (weight_decay=0), computed in float32 and
    written IN PLACE into p, exp_avg and exp_avg_sq (kgb calls it on clones and reads them
    back: kgb.judge.inplace)."""
    gf = g.float()
    mu, mu_next = mu_at(step), mu_at(step + 1)
    mu_product = mu_product_at(step)
    m = exp_avg.float().lerp(gf, 1 - BETA1)
    v = exp_avg_sq.float().mul(BETA2).addcmul_(gf, gf, value=1 - BETA2)
    denom = v.div(1 - BETA2 ** step).sqrt_().add_(EPS)
    pf = p.float().addcdiv(gf, denom, value=-LR * (1.0 - mu) / (1.0 - mu_product))
    pf.addcdiv_(m, denom, value=-LR * mu_next / (1.0 - mu_product * mu_next))
    p.copy_(pf)
    exp_avg.copy_(m)
    exp_avg_sq.copy_(v)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
