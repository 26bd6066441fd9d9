import torch


def reference(topk_ids, E):
    flat = topk_ids.reshape(-1).long()
    order = torch.sort(flat, stable=True).indices.to(torch.int32)
    counts = torch.bincount(flat, minlength=E)
    offsets = torch.zeros(E + 1, dtype=torch.int64, device=topk_ids.device)
    offsets[1:] = torch.cumsum(counts, 0)
    return order, offsets.to(torch.int32)
