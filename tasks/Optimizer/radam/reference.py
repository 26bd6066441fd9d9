import math

LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8


def reference(p, g, exp_avg, exp_avg_sq, step):
    """torch.optim.RAdam's single-tensor update (weight_decay=0), computed in float32 and
    written IN PLACE into p, exp_avg and exp_avg_sq (kgb calls it on clones and reads them
    back: kgb.judge.inplace)."""
    gf = g.float()
    m = exp_avg.float().lerp(gf, 1 - BETA1)
    v = exp_avg_sq.float().mul(BETA2).addcmul_(gf, gf, value=1 - BETA2)
    bias_correction1 = 1 - BETA1 ** step
    bias_correction2 = 1 - BETA2 ** step
    rho_inf = 2 / (1 - BETA2) - 1
    rho_t = rho_inf - 2 * step * (BETA2 ** step) / bias_correction2
    if rho_t > 5.0:
        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                         / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        adaptive = math.sqrt(bias_correction2) / v.sqrt().add_(EPS)
        update = (m / bias_correction1) * LR * (adaptive * rect)
    else:
        update = (m / bias_correction1) * LR
    p.copy_(p.float().sub(update))
    exp_avg.copy_(m)
    exp_avg_sq.copy_(v)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
