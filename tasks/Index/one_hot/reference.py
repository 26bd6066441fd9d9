import torch.nn.functional as F


def reference(idx, C):
    return F.one_hot(idx, num_classes=C)
