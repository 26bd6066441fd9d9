import torch.nn.functional as F


def reference(log_probs, target):
    return F.nll_loss(log_probs.double(), target, ignore_index=-100).float()
