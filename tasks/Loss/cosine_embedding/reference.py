import torch.nn.functional as F


def reference(x1, x2, y, margin):
    return F.cosine_embedding_loss(x1.double(), x2.double(), y, margin=margin).float()


def baseline(x1, x2, y, margin):
    # float32 (as autocast runs it): a half-precision scalar loss is rounded past the tolerance
    return F.cosine_embedding_loss(x1.float(), x2.float(), y, margin=margin)
