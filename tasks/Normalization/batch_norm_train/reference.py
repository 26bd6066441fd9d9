import torch

EPS = 1e-5


def reference(x, weight, bias):
    xd = x.double()
    mean = xd.mean(dim=(0, 2, 3))
    var = ((xd - mean[None, :, None, None]) ** 2).mean(dim=(0, 2, 3))
    invstd = 1.0 / torch.sqrt(var + EPS)
    out = ((xd - mean[None, :, None, None]) * (invstd * weight.double())[None, :, None, None]
           + bias.double()[None, :, None, None])
    return (out.to(x.dtype), mean.float(), invstd.float())


def baseline(x, weight, bias):
    out, mean, invstd = torch.native_batch_norm(x, weight, bias, None, None, True, 0.1, EPS)
    return (out, mean, invstd)
