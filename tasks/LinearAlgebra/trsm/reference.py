import torch


def reference(a, b):
    # float64 back substitution on the upper triangle only (the lower triangle is masked off
    # before the solve, so its garbage/NaN cannot leak in), rounded once.
    up = torch.triu(torch.nan_to_num(a.double(), nan=0.0))
    return torch.linalg.solve_triangular(up, b.double(), upper=True).to(b.dtype)


def baseline(a, b):
    # float32: solve_triangular has no float16/bfloat16 kernel.
    return torch.linalg.solve_triangular(a.float(), b.float(), upper=True).to(b.dtype)
