import torch.nn.functional as F

EPS = 1e-5


def reference(x):
    return F.layer_norm(x.double(), (x.shape[-1],), eps=EPS).to(x.dtype)


def baseline(x):
    return F.layer_norm(x, (x.shape[-1],), eps=EPS)
