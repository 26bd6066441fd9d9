import torch


def reference(x, t1, t2):
    return (x.float() + 0.5 * t1.float() * t2.float()).to(x.dtype)
