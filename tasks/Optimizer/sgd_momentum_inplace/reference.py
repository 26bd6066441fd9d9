import torch

LR, MOMENTUM, DAMPENING, WEIGHT_DECAY = 0.01, 0.9, 0.1, 5e-4


def reference(p, g, buf):
    """torch.optim.SGD's single-tensor update (momentum buffer present, dampening, no
    Nesterov), computed in float32 and written IN PLACE into p and buf (kgb calls it on
    clones and reads them back: kgb.judge.inplace)."""
    pf, bf = p.float(), buf.float()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    bf = bf.mul(MOMENTUM).add_(d, alpha=1 - DAMPENING)
    pf = pf.add(bf, alpha=-LR)
    p.copy_(pf)
    buf.copy_(bf)


# PyTorch's fused optimizers compute half parameters' updates in float32 too: that is what a
# PyTorch user runs, and it is in place like the kernel.
baseline = reference
