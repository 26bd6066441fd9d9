import torch


def reference(x, topk_ids, num_experts, block_size):
    T, K = topk_ids.shape
    n = T * K
    E, BLK = num_experts, block_size
    P = n + E * (BLK - 1)
    flat = topk_ids.reshape(-1).long()
    order = torch.sort(flat, stable=True).indices
    counts = torch.bincount(flat, minlength=E)
    padded = (counts + BLK - 1) // BLK * BLK
    sorted_ids = torch.full((P,), n, dtype=torch.int32, device=x.device)
    expert_ids = torch.full(((P + BLK - 1) // BLK,), -1, dtype=torch.int32, device=x.device)
    start = src = 0
    for e in range(E):
        c, pc = int(counts[e]), int(padded[e])
        sorted_ids[start:start + c] = order[src:src + c].to(torch.int32)
        expert_ids[start // BLK:(start + pc) // BLK] = e
        start += pc
        src += c
    real = sorted_ids < n
    permuted = torch.zeros((P, x.shape[1]), dtype=x.dtype, device=x.device)
    permuted[real] = x[sorted_ids[real].long() // K]
    total = torch.tensor([start], dtype=torch.int32, device=x.device)
    return sorted_ids, expert_ids, total, permuted


def baseline(x, topk_ids, num_experts, block_size):
    # vectorised PyTorch: no host synchronisation
    T, K = topk_ids.shape
    n, E, BLK = T * K, num_experts, block_size
    P = n + E * (BLK - 1)
    flat = topk_ids.reshape(-1).long()
    order = torch.sort(flat, stable=True).indices
    counts = torch.bincount(flat, minlength=E)
    padded = (counts + BLK - 1) // BLK * BLK
    pend = torch.cumsum(padded, 0)
    e_sorted = flat[order]
    rank = torch.arange(n, device=x.device) - (torch.cumsum(counts, 0) - counts)[e_sorted]
    sorted_ids = torch.full((P,), n, dtype=torch.int32, device=x.device)
    sorted_ids[(pend - padded)[e_sorted] + rank] = order.to(torch.int32)
    blocks = torch.arange(0, P, BLK, device=x.device)
    expert_ids = torch.searchsorted(pend, blocks, right=True).to(torch.int32)
    expert_ids[blocks >= pend[-1]] = -1
    real = (sorted_ids < n)[:, None]
    permuted = torch.where(real, x[sorted_ids.long().clamp(max=n - 1) // K], 0).to(x.dtype)
    return sorted_ids, expert_ids, pend[-1:].to(torch.int32), permuted
