import torch.nn.functional as F


def reference(x):
    return F.normalize(x.float(), p=2.0, dim=-1, eps=1e-12).to(x.dtype)
