import torch


def _route(logits, n_group, topk_group, k, renormalize, scaling, dtype):
    # DeepSeek-V2 MoEGate, topk_method="group_limited_greedy", ranking by the logits (softmax is
    # monotonic), ties to the smaller group / expert index (stable descending sorts)
    T, E = logits.shape
    x = logits.float()
    probs = torch.softmax(logits.to(dtype), dim=-1)
    gmax = x.view(T, n_group, E // n_group).max(dim=-1).values
    groups = torch.sort(gmax, dim=-1, descending=True, stable=True).indices[:, :topk_group]
    gmask = torch.zeros((T, n_group), dtype=torch.bool, device=x.device)
    gmask.scatter_(1, groups, True)
    allowed = gmask.repeat_interleave(E // n_group, dim=1)
    ranked = x.masked_fill(~allowed, float("-inf"))
    ids = torch.sort(ranked, dim=-1, descending=True, stable=True).indices[:, :k]
    w = probs.gather(1, ids)
    if renormalize:
        w = w / w.sum(-1, keepdim=True)
    return (w * scaling).float(), ids.to(torch.int32)


def reference(logits, n_group, topk_group, k, renormalize, scaling):
    return _route(logits, n_group, topk_group, k, renormalize, scaling, torch.float64)


def baseline(logits, n_group, topk_group, k, renormalize, scaling):
    return _route(logits, n_group, topk_group, k, renormalize, scaling, torch.float32)
