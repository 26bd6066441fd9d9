import torch


def reference(x):
    # float64 has the range for 1e±25 squared; rounded once to x's dtype.
    return torch.linalg.vector_norm(x.double()).to(x.dtype)
