import torch


def reference(a, x):
    # Lower triangle only (NaN garbage above the diagonal is masked first), float64, rounded once.
    low = torch.tril(torch.nan_to_num(a.double(), nan=0.0))
    return (low @ x.double()).to(a.dtype)


def baseline(a, x):
    return torch.tril(a) @ x
