import torch.nn.functional as F


def reference(logits, target):
    return F.cross_entropy(logits.double(), target, ignore_index=-100, reduction="none").float()
