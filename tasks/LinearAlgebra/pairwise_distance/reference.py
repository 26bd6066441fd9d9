import torch.nn.functional as F


def reference(x1, x2):
    return F.pairwise_distance(x1.double(), x2.double(), p=2.0, eps=1e-6).to(x1.dtype)


def baseline(x1, x2):
    return F.pairwise_distance(x1, x2, p=2.0, eps=1e-6)
