import torch

LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.9, 1e-4


def reference(p, g, buf):
    """torch.optim.SGD's single-tensor update (nesterov, momentum buffer present), in float32,
    out of place."""
    pf, bf = p.float().clone(), buf.float().clone()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    bf.mul_(MOMENTUM).add_(d)
    d = d.add(bf, alpha=MOMENTUM)
    pf.add_(d, alpha=-LR)
    return (pf.to(p.dtype), bf.to(buf.dtype))


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs; the update in the inputs' dtype misses the
# contract (measured: hundreds of buf elements outside the float16 and bfloat16 bounds).
baseline = reference
