import torch.nn.functional as F


def reference(logits, target, smoothing):
    return F.cross_entropy(logits.double(), target, label_smoothing=smoothing).float()


def baseline(logits, target, smoothing):
    # float32 (as autocast runs it): a half-precision scalar loss is rounded past the tolerance
    return F.cross_entropy(logits.float(), target, label_smoothing=smoothing)
