import torch


def reference(x, idx):
    return torch.take_along_dim(x, idx[:, :, None], dim=1).contiguous()
