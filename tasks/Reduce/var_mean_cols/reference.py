import torch


def reference(x):
    var, mean = torch.var_mean(x.double(), dim=0, correction=1)
    return (var.to(x.dtype), mean.to(x.dtype))


def baseline(x):
    return torch.var_mean(x, dim=0, correction=1)
