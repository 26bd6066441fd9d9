import torch.nn.functional as F


def reference(input, target, delta):
    out = F.huber_loss(input.double(), target.double(), reduction="none", delta=delta)
    return out.to(input.dtype)
