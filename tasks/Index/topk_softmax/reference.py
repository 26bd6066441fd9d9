import torch


def reference(gating, k, renormalize):
    g = gating.double()
    probs = torch.softmax(g, dim=1)
    ids = torch.sort(gating.float(), dim=1, descending=True, stable=True).indices[:, :k]
    weights = torch.gather(probs, 1, ids)
    if renormalize:
        weights = weights / weights.sum(dim=1, keepdim=True)
    return weights.float().contiguous(), ids.to(torch.int32).contiguous()


def baseline(gating, k, renormalize):
    probs = torch.softmax(gating, dim=1, dtype=torch.float32)
    ids = torch.sort(gating, dim=1, descending=True, stable=True).indices[:, :k]
    weights = probs.gather(1, ids)
    if renormalize:
        weights = weights / weights.sum(dim=1, keepdim=True)
    return weights, ids.to(torch.int32)
