import torch


def reference(cache, block_table, cu_seqlens, total_tokens):
    NB, BS, H, D = cache.shape
    cu = cu_seqlens.long()
    t = torch.arange(total_tokens, device=cache.device)
    seq = torch.searchsorted(cu, t, right=True) - 1
    p = t - cu[seq]
    blk = block_table.long()[seq, p // BS]
    return cache.reshape(NB * BS, H, D)[blk * BS + p % BS].contiguous()
