import torch.nn.functional as F


def reference(x, grid):
    y = F.grid_sample(x.double(), grid.double(), mode="bilinear", padding_mode="zeros",
                      align_corners=False)
    return y.to(x.dtype)
