import torch

MOMENTUM = 0.9


def reference(p, g, buf, offsets, lr, weight_decay):
    """torch.optim.SGD(momentum=0.9, nesterov=True, foreach=True) over K packed tensors, each
    with its own param group's lr and weight_decay, computed in float32 and written IN PLACE
    into p and buf (kgb calls it on clones and reads them back: kgb.judge.inplace)."""
    index = torch.arange(p.numel(), device=p.device)
    tensor = torch.searchsorted(offsets[1:], index, right=True)  # the tensor of each element
    lr_e, wd_e = lr[tensor], weight_decay[tensor]
    pf = p.float()
    d = g.float() + wd_e * pf
    bf = buf.float().mul(MOMENTUM).add_(d)
    p.copy_(pf - lr_e * d.add(bf, alpha=MOMENTUM))
    buf.copy_(bf)


# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs, in place like the kernel.
baseline = reference
