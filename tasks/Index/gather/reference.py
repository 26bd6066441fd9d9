import torch


def reference(x, idx):
    # .contiguous(): with a transposed x torch.gather may return a non-contiguous result
    return torch.gather(x, 1, idx).contiguous()
