import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, bias):
    out = F.instance_norm(x.double(), weight=weight.double(), bias=bias.double(), eps=EPS)
    return out.to(x.dtype)


def baseline(x, weight, bias):
    # layer_norm over (H, W) + affine: the CPU F.instance_norm fails atol on planes with mean ~64
    out = F.layer_norm(x, x.shape[-2:], eps=EPS)
    return out * weight[:, None, None] + bias[:, None, None]
