import torch


def reference(x, grad_out, indices):
    N, C, L = x.shape
    grad = torch.zeros((N, C, L), dtype=torch.float64, device=x.device)
    grad.scatter_add_(2, indices, grad_out.double())
    return grad.to(x.dtype)


def baseline(x, grad_out, indices):
    # what autograd runs for max_pool1d's backward (the 2-D kernel on a height-1 view)
    g = torch.ops.aten.max_pool2d_with_indices_backward(
        grad_out.unsqueeze(2), x.unsqueeze(2), [1, 3], [1, 2], [0, 1], [1, 1], False,
        indices.unsqueeze(2))
    return g.squeeze(2)
