import torch


def reference(x, grad_out, indices):
    N, C, H, W = x.shape
    grad = torch.zeros((N, C, H * W), dtype=torch.float64, device=x.device)
    grad.scatter_add_(2, indices.reshape(N, C, -1), grad_out.reshape(N, C, -1).double())
    return grad.reshape(N, C, H, W).to(x.dtype)


def baseline(x, grad_out, indices):
    # What autograd runs for max_pool2d's backward.
    return torch.ops.aten.max_pool2d_with_indices_backward(grad_out, x, [3, 3], [2, 2], [1, 1],
                                                           [1, 1], False, indices)
