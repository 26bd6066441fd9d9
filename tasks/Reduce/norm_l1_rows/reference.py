import torch


def reference(x):
    return torch.linalg.vector_norm(x.double(), ord=1, dim=-1).float()
