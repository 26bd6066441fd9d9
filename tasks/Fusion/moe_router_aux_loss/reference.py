import torch


def _route(logits, k, dtype):
    # HF MixtralSparseMoeBlock routing + load_balancing_loss_func (one layer, no padding mask)
    E = logits.shape[1]
    probs = torch.softmax(logits.to(dtype), dim=-1)
    # rank by the logits, ties to the smaller expert index (a stable descending sort)
    ids = torch.sort(logits.float(), dim=-1, descending=True, stable=True).indices[:, :k]
    w = probs.gather(1, ids)
    w = w / w.sum(-1, keepdim=True)
    mask = torch.nn.functional.one_hot(ids, E).to(dtype)  # [T, k, E]
    tokens_per_expert = mask.mean(0)  # [k, E]
    prob_per_expert = probs.mean(0)  # [E]
    aux = (tokens_per_expert * prob_per_expert[None]).sum() * E
    return w.float(), ids.to(torch.int32), aux.float()


def reference(logits, k):
    return _route(logits, k, torch.float64)


def baseline(logits, k):
    return _route(logits, k, torch.float32)
