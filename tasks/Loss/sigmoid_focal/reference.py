import torch
import torch.nn.functional as F


def reference(logits, target):
    # torchvision.ops.sigmoid_focal_loss(alpha=0.25, gamma=2, reduction="mean"), in float64
    x, y = logits.double(), target.double()
    p = torch.sigmoid(x)
    ce = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    p_t = p * y + (1 - p) * (1 - y)
    loss = ce * (1 - p_t) ** 2
    loss = (0.25 * y + 0.75 * (1 - y)) * loss
    return loss.mean().float()


def baseline(logits, target):
    # float32 (as autocast runs it): a half-precision scalar loss is rounded past the tolerance
    x, y = logits.float(), target.float()
    p = torch.sigmoid(x)
    ce = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    p_t = p * y + (1 - p) * (1 - y)
    loss = ce * (1 - p_t) ** 2
    loss = (0.25 * y + 0.75 * (1 - y)) * loss
    return loss.mean()
