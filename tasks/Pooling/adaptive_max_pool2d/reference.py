import torch.nn.functional as F


def reference(x, OH, OW):
    return F.adaptive_max_pool2d(x.float(), (OH, OW)).to(x.dtype)


def baseline(x, OH, OW):
    return F.adaptive_max_pool2d(x, (OH, OW))
