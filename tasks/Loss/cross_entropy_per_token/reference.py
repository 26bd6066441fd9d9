import torch.nn.functional as F


def reference(logits, target):
    return F.cross_entropy(logits.double(), target, ignore_index=-100, reduction="none").float()


def baseline(logits, target):
    # float32 logits, as the task specifies (float32 per-token losses)
    return F.cross_entropy(logits.float(), target, ignore_index=-100, reduction="none")
