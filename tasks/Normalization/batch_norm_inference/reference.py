import torch.nn.functional as F

EPS = 1e-5


def reference(x, running_mean, running_var, weight, bias):
    out = F.batch_norm(x.double(), running_mean.double(), running_var.double(), weight.double(),
                       bias.double(), training=False, eps=EPS)
    return out.to(x.dtype)


def baseline(x, running_mean, running_var, weight, bias):
    return F.batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=EPS)
