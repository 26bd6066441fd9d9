LR, LR_DECAY, WEIGHT_DECAY, EPS = 0.01, 1e-3, 1e-4, 1e-10


def reference(p, g, state_sum, step):
    """torch.optim.Adagrad's single-tensor update, computed in float32 and written IN PLACE
    into p and state_sum (kgb calls it on clones and reads them back: kgb.judge.inplace)."""
    pf, sf = p.float(), state_sum.float()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    clr = LR / (1 + (step - 1) * LR_DECAY)
    sf = sf.addcmul(d, d, value=1)
    std = sf.sqrt().add_(EPS)
    p.copy_(pf.addcdiv(d, std, value=-clr))
    state_sum.copy_(sf)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
