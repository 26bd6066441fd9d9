LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.9, 1e-4


def reference(p, g, buf):
    """torch.optim.SGD's single-tensor update (nesterov, momentum buffer present), computed in
    float32 and written IN PLACE into p and buf (kgb calls it on clones and reads them back:
    kgb.judge.inplace)."""
    pf = p.float()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    bf = buf.float().mul(MOMENTUM).add_(d)
    d = d.add(bf, alpha=MOMENTUM)
    p.copy_(pf.add(d, alpha=-LR))
    buf.copy_(bf)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel; the update in the
# inputs' dtype misses the contract (measured: hundreds of buf elements outside the float16
# and bfloat16 bounds).
baseline = reference
