import torch

LR, LR_DECAY, WEIGHT_DECAY, EPS = 0.01, 1e-3, 1e-4, 1e-10


def reference(p, g, state_sum, step):
    """torch.optim.Adagrad's single-tensor update, in float32, out of place."""
    pf, sf = p.float().clone(), state_sum.float().clone()
    d = g.float().add(pf, alpha=WEIGHT_DECAY)
    clr = LR / (1 + (step - 1) * LR_DECAY)
    sf.addcmul_(d, d, value=1)
    std = sf.sqrt().add_(EPS)
    pf.addcdiv_(d, std, value=-clr)
    return (pf.to(p.dtype), sf.to(state_sum.dtype))

# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs.
baseline = reference
