import torch


def reference(sorted_seq, values):
    return torch.searchsorted(sorted_seq.float(), values.float(), right=True)


def baseline(sorted_seq, values):
    return torch.searchsorted(sorted_seq, values, right=True)
