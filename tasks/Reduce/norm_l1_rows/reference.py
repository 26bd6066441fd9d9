import torch


def reference(x):
    return torch.linalg.vector_norm(x.double(), ord=1, dim=-1).float()


def baseline(x):
    # float32 output, as the task specifies (vector_norm's CPU reduction fails rel_l2 on long rows)
    return x.abs().sum(dim=-1, dtype=torch.float32)
