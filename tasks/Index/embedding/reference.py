import torch
import torch.nn.functional as F


def reference(idx, weight):
    return F.embedding(idx, weight)
