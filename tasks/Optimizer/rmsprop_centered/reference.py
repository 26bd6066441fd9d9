LR, ALPHA, EPS, MOMENTUM = 0.01, 0.99, 1e-8, 0.9


def reference(p, g, square_avg, grad_avg, buf):
    """torch.optim.RMSprop's single-tensor update (centered, momentum), computed in float32
    and written IN PLACE into p, square_avg, grad_avg and buf (kgb calls it on clones and reads
    them back: kgb.judge.inplace)."""
    gf = g.float()
    sq = square_avg.float().mul(ALPHA).addcmul_(gf, gf, value=1 - ALPHA)
    ga = grad_avg.float().lerp(gf, 1 - ALPHA)
    avg = sq.addcmul(ga, ga, value=-1).sqrt_().add_(EPS)
    bf = buf.float().mul(MOMENTUM).addcdiv_(gf, avg)
    p.copy_(p.float().add(bf, alpha=-LR))
    square_avg.copy_(sq)
    grad_avg.copy_(ga)
    buf.copy_(bf)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
