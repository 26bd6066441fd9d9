LR, BETA1, BETA2, WEIGHT_DECAY = 1e-4, 0.9, 0.99, 0.1


def reference(p, g, m):
    """lion-pytorch's update_fn, computed in float32 and written IN PLACE into p and m (kgb
    calls it on clones and reads them back: kgb.judge.inplace)."""
    pf, gf, mf = p.float().mul(1 - LR * WEIGHT_DECAY), g.float(), m.float()
    update = mf.mul(BETA1).add_(gf, alpha=1 - BETA1).sign_()
    p.copy_(pf.add_(update, alpha=-LR))
    m.copy_(mf.mul(BETA2).add_(gf, alpha=1 - BETA2))


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
