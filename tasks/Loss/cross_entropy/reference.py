import torch
import torch.nn.functional as F


def reference(logits, target):
    return F.cross_entropy(logits.float(), target)


def baseline(logits, target):
    # log_softmax(dtype=float32) upcasts inside the op: the task's output and math are float32
    return F.nll_loss(F.log_softmax(logits, dim=1, dtype=torch.float32), target)
