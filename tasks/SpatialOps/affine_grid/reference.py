import torch.nn.functional as F


def reference(theta, h, w):
    n = theta.shape[0]
    grid = F.affine_grid(theta.double(), [n, 1, h, w], align_corners=False)
    return grid.to(theta.dtype)


def baseline(theta, h, w):
    # float32, as the contract says: in half precision PyTorch's base grid and batched matmul
    # round |theta| ~ 300 products and miss the outlier cases by whole units
    grid = F.affine_grid(theta.float(), [theta.shape[0], 1, h, w], align_corners=False)
    return grid.to(theta.dtype)
