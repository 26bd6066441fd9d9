import torch

LR, ALPHA, EPS, MOMENTUM = 0.01, 0.99, 1e-8, 0.9


def reference(p, g, square_avg, grad_avg, buf):
    """torch.optim.RMSprop's single-tensor update (centered, momentum), in float32, out of
    place."""
    pf, gf = p.float().clone(), g.float()
    sq, ga, bf = square_avg.float().clone(), grad_avg.float().clone(), buf.float().clone()
    sq.mul_(ALPHA).addcmul_(gf, gf, value=1 - ALPHA)
    ga.lerp_(gf, 1 - ALPHA)
    avg = sq.addcmul(ga, ga, value=-1).sqrt_().add_(EPS)
    bf.mul_(MOMENTUM).addcdiv_(gf, avg)
    pf.add_(bf, alpha=-LR)
    return (pf.to(p.dtype), sq.to(p.dtype), ga.to(p.dtype), bf.to(p.dtype))

# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs.
baseline = reference
