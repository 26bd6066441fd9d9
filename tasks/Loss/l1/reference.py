import torch.nn.functional as F


def reference(input, target):
    return F.l1_loss(input.double(), target.double()).float()


def baseline(input, target):
    # float32 (as autocast runs it): a half-precision scalar loss is rounded past the tolerance
    return F.l1_loss(input.float(), target.float())
