import torch


def reference(x, out, grad_out):
    # float64 closed form on the saved output, rounded once
    t = torch.flip(torch.cumsum(torch.flip(grad_out.double() * out.double(), [-1]), -1), [-1])
    return (t / x.double()).to(x.dtype)


def baseline(x, out, grad_out):
    # float32 suffix sums, as the kernel carries them
    t = torch.flip(torch.cumsum(torch.flip(grad_out.float() * out.float(), [-1]), -1), [-1])
    return (t / x.float()).to(x.dtype)
