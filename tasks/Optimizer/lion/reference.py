import torch

LR, BETA1, BETA2, WEIGHT_DECAY = 1e-4, 0.9, 0.99, 0.1


def reference(p, g, m):
    """lion-pytorch's update_fn, in float32, out of place."""
    pf, gf, mf = p.float().clone(), g.float(), m.float().clone()
    pf.mul_(1 - LR * WEIGHT_DECAY)
    update = mf.clone().mul_(BETA1).add_(gf, alpha=1 - BETA1).sign_()
    pf.add_(update, alpha=-LR)
    mf.mul_(BETA2).add_(gf, alpha=1 - BETA2)
    return (pf.to(p.dtype), mf.to(m.dtype))

# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs.
baseline = reference
