import torch
import torch.nn.functional as F


def reference(x):
    return (x.float() * torch.sigmoid(1.702 * x.float())).to(x.dtype)
