import torch


def reference(x, t1, t2):
    return (x.float() + 0.5 * t1.float() * t2.float()).to(x.dtype)


def baseline(x, t1, t2):
    return torch.addcmul(x, t1, t2, value=0.5)
