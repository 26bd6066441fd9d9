import torch.nn.functional as F


def reference(logits, target):
    return F.cross_entropy(logits.double(), target.double()).float()
