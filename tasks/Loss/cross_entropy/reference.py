import torch
import torch.nn.functional as F


def reference(logits, target):
    return F.cross_entropy(logits.float(), target)
